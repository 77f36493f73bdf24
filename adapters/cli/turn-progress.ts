import type { Writable } from 'node:stream';
import type { Envelope } from '../../bus/index.js';

/** A stream that may be a terminal (process.stdout and process.stderr are). */
export type Output = Writable & { isTTY?: boolean };

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const FRAME_MS = 80;
const CLEAR_LINE = '\r\x1b[2K';
const BRIEF = 100;

function brief(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > BRIEF ? `${line.slice(0, BRIEF - 1)}…` : line;
}

/**
 * What a turn is doing, shown as it happens on a terminal: a spinner while the model thinks or a tool runs, each
 * tool step and the text the model writes between tool calls on stderr, and (in the chat) the reply streamed on
 * stdout. It only watches the turn's bus events. Nothing is shown on a stream that is not a terminal.
 */
export class TurnProgress {
  private frame = 0;
  private spinner: NodeJS.Timeout | undefined;
  private status = '';
  private started = new Map<string, number>();
  /** The reply text streamed on stdout during the current model call. */
  private streamed = '';
  private streamedAny = false;

  constructor(
    private readonly stderr: Output,
    private readonly stdout: Output,
    /** Stream the reply on stdout (the interactive chat). */
    private readonly streamReply: boolean,
    /** Written before the reply on stdout (`tern> ` in the chat). */
    private readonly replyPrefix = '',
  ) {}

  private get showSteps(): boolean {
    return this.stderr.isTTY === true;
  }

  private get streaming(): boolean {
    return this.streamReply && this.stdout.isTTY === true;
  }

  /** One event of the turn. */
  see(event: Envelope): void {
    switch (event.type) {
      case 'turn.started':
        this.streamedAny = false;
        return this.spin('thinking');
      case 'provider.requested':
        this.streamed = '';
        return this.spin(`waiting for ${event.data.model_name}`);
      case 'provider.chunk':
        if (event.data.kind === 'text' && this.streaming) this.stream(event.data.delta);
        return;
      case 'provider.responded':
        return this.responded(event.data.text, event.data.tool_calls.length > 0);
      case 'tool.requested':
        this.started.set(event.data.call_id, event.at);
        this.line(`→ ${event.data.name} ${brief(JSON.stringify(event.data.arguments))}`);
        return this.spin(`running ${event.data.name}`);
      case 'tool.completed': {
        const ms = event.at - (this.started.get(event.data.call_id) ?? event.at);
        const { ok, name, content } = event.data;
        this.line(ok ? `✓ ${name} (${(ms / 1000).toFixed(1)} s)` : `✗ ${name}: ${brief(content)}`);
        return this.spin('thinking');
      }
      case 'turn.completed':
      case 'turn.stopped':
      case 'turn.failed':
      case 'turn.aborted':
      // The chat asks the user about the call: the question needs the line.
      case 'approval.requested':
        return this.stop();
      default:
        return;
    }
  }

  /**
   * What is left to print of the reply once the turn has ended: nothing more than a newline when it was streamed
   * exactly, else the whole reply.
   */
  rest(reply: string): string {
    this.stop();
    if (this.streamedAny && this.streamed.trim() === reply.trim()) return '\n';
    return `${this.streamedAny ? '\n' : ''}${this.replyPrefix}${reply}\n`;
  }

  /**
   * The reply of a turn aborted by a signal: what the model had said, marked as stopped. Text streamed onto the
   * screen already is only marked.
   */
  stopped(partial: string): string {
    this.stop();
    const streamed = this.streamed !== '';
    this.streamed = '';
    if (streamed) return ' [stopped]\n';
    return `${this.streamedAny ? '\n' : ''}${this.replyPrefix}${partial ? `${partial} ` : ''}[stopped]\n`;
  }

  /**
   * A line about what the program waits for (MCP servers, background tasks), shown in place of the spinner on a
   * terminal until the next one; `undefined` clears it. Returns whether a terminal shows it.
   */
  waitingFor(line: string | undefined): boolean {
    if (!this.showSteps) return false;
    if (line === undefined) {
      this.stop();
      return true;
    }
    this.spin(line);
    return true;
  }

  stop(): void {
    if (this.spinner) clearInterval(this.spinner);
    this.spinner = undefined;
    if (this.status && this.showSteps) this.stderr.write(CLEAR_LINE);
    this.status = '';
  }

  private responded(text: string, toolCalls: boolean): void {
    if (!toolCalls || !text.trim()) return;
    // Text written before tool calls: already on the screen when streamed, else said on stderr.
    if (this.streaming && this.streamed) {
      this.stdout.write('\n');
      this.streamed = '';
      return;
    }
    this.line(`… ${brief(text)}`);
  }

  private stream(delta: string): void {
    this.stop();
    if (!this.streamed) this.stdout.write(this.replyPrefix);
    this.streamed += delta;
    this.streamedAny = true;
    this.stdout.write(delta);
  }

  private line(text: string): void {
    if (!this.showSteps) return;
    const spinning = this.status !== '';
    if (spinning) this.stderr.write(CLEAR_LINE);
    this.stderr.write(`${text}\n`);
    if (spinning) this.draw();
  }

  private spin(status: string): void {
    if (!this.showSteps || this.streamed) return;
    this.status = status;
    this.draw();
    this.spinner ??= setInterval(() => {
      this.frame = (this.frame + 1) % FRAMES.length;
      this.draw();
    }, FRAME_MS).unref();
  }

  private draw(): void {
    if (this.status) this.stderr.write(`${CLEAR_LINE}${FRAMES[this.frame]} ${this.status}…`);
  }
}
