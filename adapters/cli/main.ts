// `tern`. The build bundles it behind `bin.ts`, which turns on Node's compile cache first.
import { commands } from './commands/index.js';
import { mainHelp } from './help.js';
import { runCommand } from './run-command.js';

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? commands.find((c) => c.name === rest[0]) : undefined;
    if (topic) return runCommand(topic, ['--help']);
    process.stdout.write(`${mainHelp(commands)}\n`);
    return 0;
  }
  if (name === '--version' || name === '-v') return runCommand(commands.find((c) => c.name === 'version')!, []);
  const spec = commands.find((c) => c.name === name);
  if (!spec) {
    process.stderr.write(
      `tern: unknown command "${name}" (it is not one of: ` +
        `${commands.map((c) => c.name).join(', ')}). Run \`tern --help\`.\n`,
    );
    return 2;
  }
  return runCommand(spec, rest, commands);
}

// `tern status | head`: a reader that stops early is not an error; the rest of the output has nowhere to go.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

/** Resolves once what was written to `stream` has reached the pipe, file or terminal behind it. */
const drained = (stream: NodeJS.WriteStream): Promise<void> =>
  new Promise((resolve) => stream.write('', () => resolve()));

// A finished command exits once its output is written. Left to end by itself, Node first waits for the V8 worker
// thread to finish its queued tasks (optimizing the code that ran most), work for a process that is about to end.
void main(process.argv.slice(2)).then(async (code) => {
  process.exitCode = code;
  await drained(process.stdout);
  await drained(process.stderr);
  process.exit(code);
});
