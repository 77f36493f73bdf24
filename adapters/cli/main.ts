#!/usr/bin/env -S node --optimize-for-size --max-semi-space-size=1 --v8-pool-size=1 --initial-old-space-size=32
// Memory over speed, a 1 MB young generation and one V8 worker thread keep an idle `tern gateway` ~40 MB smaller; a 32 MB
// old generation before its first full collection keeps that collection out of the start (actors/gateway/README.md).
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
    process.stderr.write(`tern: unknown command "${name}" (it is not one of: ${commands.map((c) => c.name).join(', ')}). Run \`tern --help\`.\n`);
    return 2;
  }
  return runCommand(spec, rest);
}

// `tern status | head`: a reader that stops early is not an error; the rest of the output has nowhere to go.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

process.exitCode = await main(process.argv.slice(2));
