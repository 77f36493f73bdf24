import { createInterface, type Interface } from 'node:readline/promises';
import { Writable } from 'node:stream';

/** Questions on a terminal: with a default shown in brackets, a choice from a list, and a secret typed unseen. */
export class Prompter {
  private readonly rl: Interface;
  private muted = false;

  constructor(
    input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
  ) {
    // readline echoes what is typed through this stream; while a secret is typed, nothing passes.
    const echo = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        if (!this.muted) output.write(chunk);
        done();
      },
    });
    this.rl = createInterface({ input, output: echo, terminal: true });
  }

  /** The answer, or `fallback` for an empty one; undefined when input ended (Ctrl-D). */
  async ask(question: string, fallback?: string): Promise<string | undefined> {
    const shown = fallback ? `${question} [${fallback}]: ` : `${question}: `;
    const answer = await this.rl.question(shown).catch(() => undefined);
    if (answer === undefined) return undefined;
    return answer.trim() === '' ? fallback : answer.trim();
  }

  /** A secret: typed without echo; empty is allowed (skipped). */
  async secret(question: string): Promise<string | undefined> {
    this.output.write(`${question}: `);
    this.muted = true;
    try {
      const answer = await this.rl.question('').catch(() => undefined);
      return answer?.trim();
    } finally {
      this.muted = false;
      this.output.write('\n');
    }
  }

  /** One of `options` (by name or number), asked again until it is one. */
  async choose(question: string, options: readonly string[], fallback: string): Promise<string | undefined> {
    for (;;) {
      const answer = await this.ask(question, fallback);
      if (answer === undefined) return undefined;
      const byNumber = /^\d+$/.test(answer) ? options[Number(answer) - 1] : undefined;
      const chosen = byNumber ?? options.find((o) => o === answer.toLowerCase());
      if (chosen) return chosen;
      this.output.write(`"${answer}" is not one of them; type a name or its number.\n`);
    }
  }

  close(): void {
    this.rl.close();
  }
}
