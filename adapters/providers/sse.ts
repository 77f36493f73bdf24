/** One dispatched server-sent event. `event` is `message` when the stream names none. */
export interface SseEvent {
  event: string;
  data: string;
}

/**
 * An incremental parser for `text/event-stream` (WHATWG rules): `\n`, `\r\n` and `\r` line ends, multi-line
 * `data:`, comments, `event:` names. Bytes may be split anywhere, also inside a UTF-8 character or a `\r\n`.
 */
export class SseParser {
  private readonly decoder = new TextDecoder('utf-8');
  private pending = '';
  private eventName = '';
  private dataLines: string[] = [];

  /** Feeds bytes or text; returns the events completed by them, in order. */
  push(chunk: Uint8Array | string): SseEvent[] {
    this.pending += typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    return this.drainLines(false);
  }

  /**
   * The stream ended. Lenient where the standard is strict: servers often close right after the last
   * `data:` line, so an event without its closing blank line is still delivered.
   */
  end(): SseEvent[] {
    this.pending += this.decoder.decode();
    const events = this.drainLines(true);
    this.line('', events);
    return events;
  }

  private drainLines(final: boolean): SseEvent[] {
    const events: SseEvent[] = [];
    const text = this.pending;
    let start = 0;
    // Each search runs again only once passed, so a chunk without any `\r` is scanned for it once, not per line.
    let lf = -2;
    let cr = -2;
    for (;;) {
      if (lf !== -1 && lf < start) lf = text.indexOf('\n', start);
      if (cr !== -1 && cr < start) cr = text.indexOf('\r', start);
      const end = cr >= 0 && (lf < 0 || cr < lf) ? cr : lf;
      if (end < 0) break;
      // A `\r` at the very end may be the first half of a `\r\n` still in flight.
      if (end === cr && end === text.length - 1 && !final) break;
      const next = end === cr && text.charCodeAt(end + 1) === 10 ? end + 2 : end + 1;
      this.line(text.slice(start, end), events);
      start = next;
    }
    this.pending = text.slice(start);
    if (final && this.pending.length > 0) {
      this.line(this.pending, events);
      this.pending = '';
    }
    return events;
  }

  private line(line: string, events: SseEvent[]): void {
    if (line.length === 0) {
      if (this.dataLines.length > 0) events.push({ event: this.eventName || 'message', data: this.dataLines.join('\n') });
      this.eventName = '';
      this.dataLines = [];
      return;
    }
    if (line.charCodeAt(0) === 58) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.dataLines.push(value);
    else if (field === 'event') this.eventName = value;
  }
}
