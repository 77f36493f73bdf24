// Runs `tern` on a pseudo-terminal (util-linux `script`), as a person at a terminal runs it: stdin, stdout and stderr
// are one terminal, so what the program shows only on a TTY (progress, spinner, streaming) appears.
import { spawn } from 'node:child_process';
import { repoRoot } from './cli.js';

export interface PtyRun {
  code: number | null;
  /** Everything written to the terminal, control sequences included. */
  raw: string;
}

const quote = (arg: string): string => `'${arg.replace(/'/g, `'\\''`)}'`;

/** Runs `tern ARGS` on a terminal; `input` is typed (a `\x04` ends input like Ctrl-D). */
export function ternOnTerminal(args: string[], env: NodeJS.ProcessEnv, input: string[] = []): Promise<PtyRun> {
  const command = [process.execPath, '--import', 'tsx', 'adapters/cli/main.ts', ...args].map(quote).join(' ');
  return new Promise((resolve) => {
    const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: repoRoot, env: { ...env, TERM: 'xterm' } });
    let raw = '';
    let typed = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      raw += chunk.toString();
      // Each line is typed once the program shows its prompt for it.
      if (typed < input.length && raw.split('you> ').length - 1 > typed) child.stdin.write(input[typed++]!);
    });
    // A program that never ends (a prompt nobody answers) is ended, and the test sees what it showed.
    const limit = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (code) => {
      clearTimeout(limit);
      resolve({ code, raw });
    });
    if (input.length === 0) child.stdin.end();
  });
}

/**
 * The lines a terminal would show once the program ended: `\r` returns to the start of the line, `ESC[2K` clears it
 * (a spinner redraws itself in place that way), `\n` ends a line.
 */
export function screenLines(raw: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (let i = 0; i < raw.length; i++) {
    const control = /^\x1b\[[0-9;?]*[A-Za-z]/.exec(raw.slice(i, i + 16))?.[0];
    if (control === '\x1b[2K') {
      line = '';
      i += control.length - 1;
    } else if (control !== undefined) {
      // Other cursor moves (readline's prompt) change nothing a test reads.
      i += control.length - 1;
    } else if (raw[i] === '\r') {
      if (raw[i + 1] !== '\n' && raw[i + 1] !== '\r' && raw[i + 1] !== '\x1b') line = '';
    } else if (raw[i] === '\n') {
      lines.push(line);
      line = '';
    } else line += raw[i];
  }
  if (line) lines.push(line);
  return lines;
}
