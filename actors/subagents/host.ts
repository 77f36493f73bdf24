import type { ChildOutcome } from '../../machines/subagent-task.js';
import type { InboundMessage, SessionLink } from '../session.js';

/** A subagent task's one turn: which agent runs it, in which (new) session, linked to whom, with what text. */
export interface ChildTurn {
  agent: string;
  sessionKey: string;
  link: SessionLink;
  /** The task as its user message, with the parent's channel, chat and `remote`, so the child can do no more. */
  message: InboundMessage;
}

/**
 * What the subagent actors need of the rest of the runtime, and all they reach: run a task's turn and tell how it
 * ended. Aborting `signal` cancels the turn and records `signal.reason`; the child's session (its actors, its todo
 * plan) is released when the turn has ended.
 */
export interface SubagentHost {
  run(child: ChildTurn, signal: AbortSignal): Promise<ChildOutcome>;
}
