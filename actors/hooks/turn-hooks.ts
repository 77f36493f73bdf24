import type {
  ChatResponse,
  EventData,
  HookDecision,
  HookInput,
  HookMeta,
  HookPoint,
  ImagePart,
  ModelRequest,
  ToolCall,
} from '../../bus/index.js';

/** Why a call a hook renamed to a tool the turn does not offer is refused. */
const NOT_OFFERED = 'which is not available in this turn';

/** One hook's answer at one point, already bounded in time (a live hook) or read from the log (rerun). */
export interface Decider {
  hook: string;
  decide(input: HookInput, signal: AbortSignal): Promise<HookDecision>;
}

/** Which deciders a point of a call asks, in order. `call` is the call as it stands (an approver may apply to it). */
export interface DecisionSource {
  deciders(point: HookPoint, key: { call_id?: string; iteration?: number }, call?: ToolCall): Decider[];
}

/** A tool's outcome; `refused` marks a sandbox or guard refusal, which no hook may turn into something else. */
export interface RunOutcome {
  ok: boolean;
  content: string;
  /** Images the tool shows the model; a hook that changes the text leaves them as they are. */
  images?: ImagePart[];
  refused?: boolean;
}

/** A hook ended the turn: `abort_turn`, or `hard_abort` (which also drops what waits in the session). */
export class HookAbortError extends Error {
  readonly reply: string;
  constructor(
    readonly code: 'hook_abort_turn' | 'hook_hard_abort',
    readonly hook: string,
    readonly point: HookPoint,
    reason: string | undefined,
  ) {
    super(`hook ${hook} ended the turn at ${point}${reason ? `: ${reason}` : ''}`);
    this.name = 'HookAbortError';
    this.reply = `The turn was ended by hook ${hook}${reason ? `: ${reason}` : '.'}`;
  }
}

export interface TurnHooksDeps {
  source: DecisionSource;
  /** Records one decision (`hook.decided`): published live, collected by rerun. */
  record: (decided: EventData<'hook.decided'>) => void;
  meta: HookMeta;
  /** Tool names the turn offers: a hook cannot move a call to a tool the turn profile or AGENT.md left out. */
  offered: (name: string) => boolean;
  /** Masks secrets in what a hook hands the model or the log. */
  clean: (text: string) => string;
  now: () => number;
}

const ACTIONS_AT: Record<HookPoint, ReadonlySet<string>> = {
  before_llm: new Set(['continue', 'modify', 'abort_turn', 'hard_abort']),
  after_llm: new Set(['continue', 'modify', 'abort_turn', 'hard_abort']),
  before_tool: new Set(['continue', 'modify', 'respond', 'deny_tool', 'abort_turn', 'hard_abort']),
  after_tool: new Set(['continue', 'modify', 'abort_turn', 'hard_abort']),
  approve_tool: new Set(['continue', 'deny_tool']),
};

/** What the model reads for a call an approver turned down: the user in the chat, or an approval hook. */
const notApproved = (hook: string, reason: string | undefined): string =>
  hook === 'chat'
    ? `Tool call not approved: ${reason ?? 'denied in the chat'}`
    : `Tool call denied by approval hook ${hook}: ${reason ?? 'not approved'}`;

/**
 * The hook pipeline of one turn, around its model calls and tool calls: before a model call (the request may be
 * changed), after it (the answer may be changed), before a tool runs (its call may be changed, answered by the
 * hook, or denied with a reason the model reads), its approvers (hooks, then the user in the chat), and after it
 * (the result may be changed). Every decision is recorded in the order applied; `abort_turn` and `hard_abort`
 * end the turn with `HookAbortError`. A decision that makes no sense at its point is recorded and has no effect.
 */
export class TurnHooks {
  constructor(private readonly deps: TurnHooksDeps) {}

  async callModel(
    iteration: number,
    request: ModelRequest,
    signal: AbortSignal,
    call: (request: ModelRequest) => Promise<ChatResponse>,
  ): Promise<ChatResponse> {
    let current = request;
    for (const decider of this.deps.source.deciders('before_llm', { iteration })) {
      const decision = await this.decided(
        decider,
        { point: 'before_llm', meta: this.deps.meta, iteration, request: current },
        signal,
        { iteration },
      );
      if (decision.action === 'modify' && decision.request) current = { ...current, ...decision.request };
    }
    let answer = await call(current);
    for (const decider of this.deps.source.deciders('after_llm', { iteration })) {
      const decision = await this.decided(
        decider,
        { point: 'after_llm', meta: this.deps.meta, iteration, model: current.model, answer },
        signal,
        { iteration },
      );
      if (decision.action === 'modify' && decision.answer) answer = { ...answer, ...decision.answer };
    }
    return answer;
  }

  async runTool(
    call: ToolCall,
    signal: AbortSignal,
    run: (call: ToolCall) => Promise<RunOutcome>,
  ): Promise<RunOutcome> {
    const key = { call_id: call.id };
    let current = call;
    for (const decider of this.deps.source.deciders('before_tool', key)) {
      const decision = await this.decided(
        decider,
        { point: 'before_tool', meta: this.deps.meta, call: current },
        signal,
        key,
      );
      if (decision.action === 'respond')
        return { ok: decision.result?.ok ?? true, content: decision.result?.content ?? '' };
      if (decision.action === 'deny_tool')
        return {
          ok: false,
          content: this.deps.clean(`Tool call denied by hook ${decider.hook}: ${decision.reason ?? 'no reason given'}`),
        };
      if (decision.action === 'modify' && decision.call) {
        const name = decision.call.name ?? current.name;
        if (!this.deps.offered(name))
          return {
            ok: false,
            content: `Tool call refused: hook ${decider.hook} changed it to "${name}", ${NOT_OFFERED}`,
          };
        current = { ...current, name, arguments: decision.call.arguments ?? current.arguments };
      }
    }
    for (const decider of this.deps.source.deciders('approve_tool', key, current)) {
      const decision = await this.decided(
        decider,
        { point: 'approve_tool', meta: this.deps.meta, call: current },
        signal,
        key,
      );
      if (decision.action !== 'continue')
        return { ok: false, content: this.deps.clean(notApproved(decider.hook, decision.reason)) };
    }
    const started = this.deps.now();
    let result = await run(current);
    // A refusal stands as it is: hooks are not asked to change it.
    if (result.refused) return result;
    for (const decider of this.deps.source.deciders('after_tool', key)) {
      const decision = await this.decided(
        decider,
        { point: 'after_tool', meta: this.deps.meta, call: current, result, duration_ms: this.deps.now() - started },
        signal,
        key,
      );
      if (decision.action === 'modify' && decision.result)
        result = { ...result, ok: decision.result.ok ?? result.ok, content: decision.result.content ?? result.content };
    }
    return result;
  }

  /** Asks one decider, records what it decided (secrets masked) and ends the turn on an abort. */
  private async decided(
    decider: Decider,
    input: HookInput,
    signal: AbortSignal,
    key: { call_id?: string; iteration?: number },
  ): Promise<HookDecision> {
    const decision = this.masked(await decider.decide(input, signal));
    this.deps.record({ hook: decider.hook, point: input.point, ...key, ...decision });
    if (!ACTIONS_AT[input.point].has(decision.action)) {
      return input.point === 'approve_tool'
        ? { action: 'deny_tool', reason: `${decision.action} is not an approval` }
        : { action: 'continue' };
    }
    if (decision.action === 'abort_turn' || decision.action === 'hard_abort') {
      throw new HookAbortError(
        decision.action === 'abort_turn' ? 'hook_abort_turn' : 'hook_hard_abort',
        decider.hook,
        input.point,
        decision.reason,
      );
    }
    return decision;
  }

  private masked(decision: HookDecision): HookDecision {
    const { clean } = this.deps;
    const out: HookDecision = { ...decision };
    if (decision.reason !== undefined) out.reason = clean(decision.reason);
    if (decision.result?.content !== undefined)
      out.result = { ...decision.result, content: clean(decision.result.content) };
    return out;
  }
}
