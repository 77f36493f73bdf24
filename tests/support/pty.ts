// Runs `tern` on a pseudo-terminal (util-linux `script`), as a person at a terminal runs it: stdin, stdout and stderr
// are one terminal, so what the program shows only on a TTY (progress, spinner, streaming) appears.
import { spawn } from 'node:child_process';
import { repoRoot, ternEntry } from './cli.js';

export interface PtyRun {
  code: number | null;
  /** Everything written to the terminal, control sequences included. */
  raw: string;
}

const quote = (arg: string): string => `'${arg.replace(/'/g, `'\\''`)}'`;

/** What to type once the terminal shows `after` (past what earlier steps waited for). */
export interface Keystrokes {
  after: string;
  type: string;
  /** Typed only once this has also settled: the text can show before what it announces has happened. */
  once?: PromiseLike<unknown>;
}

/**
 * Runs `tern ARGS` on a terminal; `input` is typed (a `\x04` ends input like Ctrl-D): a plain string once the next
 * `you> ` prompt shows, a `Keystrokes` once its text shows.
 */
export function ternOnTerminal(
  args: string[],
  env: NodeJS.ProcessEnv,
  input: Array<string | Keystrokes> = [],
): Promise<PtyRun> {
  const command = [process.execPath, ...ternEntry, ...args].map(quote).join(' ');
  return new Promise((resolve) => {
    // The test runner's colour settings make Node warn on a terminal; a person's terminal has neither.
    const { FORCE_COLOR: _force, NO_COLOR: _no, ...plain } = env;
    const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: repoRoot, env: { ...plain, TERM: 'xterm' } });
    let raw = '';
    let typed = 0;
    let seen = 0;
    let held = false;
    const steps: Keystrokes[] = input.map((step) => (typeof step === 'string' ? { after: 'you> ', type: step } : step));
    // Each answer is typed once the program shows its question.
    const pump = (): void => {
      while (!held && typed < steps.length) {
        const step = steps[typed]!;
        const at = raw.indexOf(step.after, seen);
        if (at < 0) return;
        seen = at + step.after.length;
        if (step.once) {
          held = true;
          void Promise.resolve(step.once).then(() => {
            held = false;
            typed++;
            child.stdin.write(step.type);
            pump();
          });
          return;
        }
        typed++;
        child.stdin.write(step.type);
      }
    };
    child.stdout.on('data', (chunk: Buffer) => {
      raw += chunk.toString();
      pump();
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
