import { createInterface, type Interface } from 'node:readline';

/**
 * The chat's input, line by line, in order: lines that arrive while a turn runs (pasted, or piped in all at once)
 * wait for their turn instead of being lost. `next` resolves with the next line, or undefined once input has ended
 * (Ctrl-D, the end of a pipe) or `signal` has aborted. On a terminal, Ctrl-C reaches the process as SIGINT (readline
 * would otherwise only pause the input).
 */
export class LineInput {
  private readonly rl: Interface;
  private readonly lines: string[] = [];
  private waiter: ((line: string | undefined) => void) | undefined;
  private ended = false;

  constructor(
    input: NodeJS.ReadableStream & { isTTY?: boolean },
    private readonly output: NodeJS.WritableStream,
    signal: AbortSignal,
  ) {
    this.rl = createInterface({ input, output, terminal: input.isTTY === true });
    this.rl.on('line', (line) => {
      if (this.waiter) this.answer(line);
      else this.lines.push(line);
    });
    this.rl.on('close', () => {
      this.ended = true;
      this.answer(undefined);
    });
    this.rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
    signal.addEventListener('abort', () => this.close(), { once: true });
  }

  /** Shows `prompt` and resolves with the next line (one already typed is taken at once). */
  next(prompt: string): Promise<string | undefined> {
    const waiting = this.lines.shift();
    if (waiting === undefined && this.ended) return Promise.resolve(undefined);
    if (this.ended) this.output.write(prompt);
    else {
      this.rl.setPrompt(prompt);
      this.rl.prompt(true);
    }
    if (waiting !== undefined) return Promise.resolve(waiting);
    return new Promise((resolve) => (this.waiter = resolve));
  }

  close(): void {
    this.rl.close();
  }

  private answer(line: string | undefined): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.(line);
  }
}
