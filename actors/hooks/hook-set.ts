import type { Hook, HookDecision, HookInput, HookPoint } from '../../bus/index.js';

export interface HookTimeouts {
  observer_timeout_ms: number;
  interceptor_timeout_ms: number;
  approval_timeout_ms: number;
}

export type HookLog = (
  level: 'info' | 'warn' | 'error',
  message: string,
  fields: Record<string, string | number>,
) => void;

/** Lower priority first, then by name: the order hooks are asked and notified in. */
const byPriority = (a: Hook, b: Hook): number =>
  a.priority - b.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The hooks of a process (configured processes and plugins' hooks), in order, and how one is asked: within its
 * time limit, a failure or a timeout counting as `continue` for an interceptor and as a denial for an approver
 * (logged either way). A turn that is cancelled while a hook thinks rejects with the turn's reason.
 */
export class HookSet {
  private hooks: Hook[] = [];

  constructor(
    readonly timeouts: () => HookTimeouts,
    private readonly log: HookLog,
  ) {}

  add(hook: Hook): void {
    this.hooks = [...this.hooks.filter((h) => h.name !== hook.name), hook].sort(byPriority);
  }

  remove(name: string): Hook | undefined {
    const found = this.hooks.find((h) => h.name === name);
    this.hooks = this.hooks.filter((h) => h !== found);
    return found;
  }

  all(): readonly Hook[] {
    return this.hooks;
  }

  interceptors(point: HookPoint): Hook[] {
    return this.hooks.filter((h) => h.intercepts(point));
  }

  /** Whether any hook intercepts anything (else a turn needs no hook pipeline for them). */
  intercepting(): boolean {
    return this.hooks.some(
      (h) =>
        h.intercepts('before_llm') ||
        h.intercepts('after_llm') ||
        h.intercepts('before_tool') ||
        h.intercepts('after_tool') ||
        h.intercepts('approve_tool'),
    );
  }

  async ask(hook: Hook, input: HookInput, turn: AbortSignal): Promise<HookDecision> {
    const approving = input.point === 'approve_tool';
    const limit = approving ? this.timeouts().approval_timeout_ms : this.timeouts().interceptor_timeout_ms;
    const timer = AbortSignal.timeout(limit);
    try {
      return await hook.decide(input, AbortSignal.any([turn, timer]));
    } catch (error) {
      if (turn.aborted) throw turn.reason instanceof Error ? turn.reason : new Error('the turn was cancelled');
      const why = timer.aborted
        ? `timed out after ${limit} ms`
        : `failed (${(error as Error)?.message ?? String(error)})`;
      this.log(
        'warn',
        approving ? 'approval hook gave no answer; the call is denied' : 'hook gave no answer; the turn goes on',
        { hook: hook.name, point: input.point, reason: why },
      );
      // The decision names the hook; the reason says what happened to it.
      return { action: approving ? 'deny_tool' : 'continue', reason: why };
    }
  }

  async close(): Promise<void> {
    const hooks = this.hooks;
    this.hooks = [];
    await Promise.all(hooks.map((h) => h.close().catch(() => undefined)));
  }
}
