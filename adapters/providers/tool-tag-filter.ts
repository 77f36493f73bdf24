import type { StreamChunk } from './provider.js';

const tag = '<tool_call>';

/**
 * Keeps `<tool_call>…` text out of streamed chunks: once the tag starts, the rest of the answer text is tool
 * calls (parsed from the whole answer at the end). A piece that may be the start of the tag waits for the next.
 */
export class ToolTagFilter {
  private held = '';
  private hiding = false;

  constructor(private readonly onChunk: (chunk: StreamChunk) => void) {}

  push(chunk: StreamChunk): void {
    if (chunk.kind !== 'text') return this.onChunk(chunk);
    if (this.hiding) return;
    const text = this.held + chunk.delta;
    const at = text.indexOf(tag);
    if (at >= 0) {
      this.hiding = true;
      this.held = '';
      return this.send(text.slice(0, at));
    }
    const keep = partialTagLength(text);
    this.held = text.slice(text.length - keep);
    this.send(text.slice(0, text.length - keep));
  }

  /** The answer is complete: text held back because it looked like the tag's start is shown after all. */
  flush(): void {
    if (!this.hiding) this.send(this.held);
    this.held = '';
  }

  private send(delta: string): void {
    if (delta !== '') this.onChunk({ kind: 'text', delta });
  }
}

function partialTagLength(text: string): number {
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length--) {
    if (tag.startsWith(text.slice(text.length - length))) return length;
  }
  return 0;
}
