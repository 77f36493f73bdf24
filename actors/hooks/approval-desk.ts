import { randomBytes } from 'node:crypto';
import type { Subscription } from 'rxjs';
import { draftOf, type Bus, type Correlation, type ToolCall } from '../../bus/index.js';
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

type Waiting = {
  session: string | undefined;
  tool: string;
  asker: string | undefined;
  settle: (answer: ApprovalAnswer) => void;
};

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
  private readonly answers: Subscription;

  constructor(private readonly bus: Bus) {
    this.answers = bus.on('approval.answered').subscribe((event) => {
      const waiting = this.waiting.get(event.data.approval_id);
      if (!waiting || (event.session !== undefined && event.session !== waiting.session)) return;
      this.waiting.delete(event.data.approval_id);
      const { approved, by, reason } = event.data;
      waiting.settle({ approved, reason: reason ?? (by === 'user' ? (approved ? 'approved in the chat' : 'denied in the chat') : by) });
    });
  }

  /** The call `/approve id` from this session would answer, if one waits. */
  waitingCall(id: string, session: string | undefined): WaitingCall | undefined {
    const waiting = this.waiting.get(id);
    return waiting && waiting.session === session ? { tool: waiting.tool, asker: waiting.asker } : undefined;
  }

  ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    const id = this.freshId();
    const { keys, timeoutMs } = request;
    return new Promise<ApprovalAnswer>((resolve) => {
      const end = (answer: ApprovalAnswer): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(answer);
      };
      const answerFor = (by: 'timeout' | 'turn_ended', reason: string): void => {
        if (!this.waiting.has(id)) return;
        this.bus.publish(draftOf(keys, 'approval.answered', { approval_id: id, approved: false, by, reason }));
      };
      const onAbort = (): void => answerFor('turn_ended', 'the turn ended before anyone answered');
      const timer = setTimeout(() => answerFor('timeout', `no answer in the chat within ${seconds(timeoutMs)}`), timeoutMs);
      this.waiting.set(id, { session: keys.session, tool: request.call.name, asker: request.asker, settle: end });
      signal.addEventListener('abort', onAbort, { once: true });
      this.bus.publish(draftOf(keys, 'approval.requested', {
        approval_id: id,
        tool: request.call.name,
        call_id: request.call.id,
        prompt: request.clean(approvalPrompt(request.call, id)),
        channel: request.channel,
        chat: request.chat,
        timeout_ms: timeoutMs,
      }));
    });
  }

  /** Denies whatever still waits (the process is stopping). */
  close(): void {
    this.answers.unsubscribe();
    for (const [id, waiting] of this.waiting) {
      this.waiting.delete(id);
      waiting.settle({ approved: false, reason: 'the gateway is stopping' });
    }
  }

  private freshId(): string {
    for (;;) {
      const id = randomBytes(2).toString('hex');
      if (!this.waiting.has(id)) return id;
    }
  }
}
