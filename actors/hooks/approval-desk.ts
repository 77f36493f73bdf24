import { randomBytes } from 'node:crypto';
import {
  draftOf,
  RequestAbortedError,
  RequestTimeoutError,
  type Bus,
  type Correlation,
  type Envelope,
  type RequestClock,
  type ToolCall,
} from '../../bus/index.js';
import { approvalPrompt } from './approval-rules.js';

export interface ApprovalRequest {
  keys: Correlation & { turn: string };
  call: ToolCall;
  channel: string;
  chat: string;
  /** The sender of the message the turn answers. */
  asker?: string;
  timeoutMs: number;
  /** Masks secrets in what the chat is shown. */
  clean: (text: string) => string;
}

export type ApprovalAnswer = { approved: boolean; reason: string };

/** An approval waiting for its answer: what `/approve` and `/deny` check before they answer it. */
type Waiting = { session: string | undefined; tool: string; asker: string | undefined };

/** A call waiting in a session: its tool, and who asked for the turn (absent where nobody did). */
export type WaitingCall = { tool: string; asker: string | undefined };

const seconds = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/**
 * Tool calls waiting for the user. Asking publishes `approval.requested` (the gateway shows it in the chat, with
 * buttons where the channel has them); the answer is an `approval.answered` on the bus, from `/approve` or
 * `/deny` in the same session, or given here when the time is up or the turn ended. Ids are four hex digits,
 * unique among the approvals waiting.
 */
export class ApprovalDesk {
  private readonly waiting = new Map<string, Waiting>();
  /** Aborts what still waits when the desk closes. */
  private readonly closed = new AbortController();

  /** `clock`: the timer of each approval's `timeoutMs` (real time by default; tests move one by hand). */
  constructor(
    private readonly bus: Bus,
    private readonly clock?: RequestClock,
  ) {}

  /** The call `/approve id` from this session would answer, if one waits. */
  waitingCall(id: string, session: string | undefined): WaitingCall | undefined {
    const waiting = this.waiting.get(id);
    return waiting && waiting.session === session ? { tool: waiting.tool, asker: waiting.asker } : undefined;
  }

  async ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    const id = this.freshId();
    const { keys, timeoutMs } = request;
    const session = keys.session;
    this.waiting.set(id, { session, tool: request.call.name, asker: request.asker });
    const draft = draftOf(keys, 'approval.requested', {
      approval_id: id,
      tool: request.call.name,
      call_id: request.call.id,
      prompt: request.clean(approvalPrompt(request.call, id)),
      channel: request.channel,
      chat: request.chat,
      timeout_ms: timeoutMs,
    });
    const pick = (event: Envelope<'approval.answered'>): ApprovalAnswer | undefined => {
      if (event.data.approval_id !== id || (event.session !== undefined && event.session !== session)) return undefined;
      const { approved, by, reason } = event.data;
      const byUser = approved ? 'approved in the chat' : 'denied in the chat';
      return { approved, reason: reason ?? (by === 'user' ? byUser : by) };
    };
    const noAnswer = (by: 'timeout' | 'turn_ended', reason: string): ApprovalAnswer => {
      this.bus.publish(draftOf(keys, 'approval.answered', { approval_id: id, approved: false, by, reason }));
      return { approved: false, reason };
    };
    try {
      return await this.bus.request(draft, {
        reply: { on: ['approval.answered'], pick },
        timeoutMs,
        signal: AbortSignal.any([signal, this.closed.signal]),
        ...(this.clock ? { clock: this.clock } : {}),
      });
    } catch (error) {
      if (error instanceof RequestTimeoutError) {
        return noAnswer('timeout', `no answer in the chat within ${seconds(timeoutMs)}`);
      }
      if (!(error instanceof RequestAbortedError)) throw error;
      if (this.closed.signal.aborted) return { approved: false, reason: 'the gateway is stopping' };
      return noAnswer('turn_ended', 'the turn ended before anyone answered');
    } finally {
      this.waiting.delete(id);
    }
  }

  /** Denies whatever still waits (the process is stopping). */
  close(): void {
    this.closed.abort('the gateway is stopping');
  }

  private freshId(): string {
    for (;;) {
      const id = randomBytes(2).toString('hex');
      if (!this.waiting.has(id)) return id;
    }
  }
}
