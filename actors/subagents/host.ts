import type { EventData } from '../../bus/index.js';
import type { ChildOutcome } from '../../machines/subagent-task.js';

/** A subagent's session is linked to the turn and the task that started it; its events carry both keys. */
export interface SessionLink {
  /** The turn that started the task. */
  parent: string;
  task: string;
  /** The agent of that turn, whose `subagents.model` the child's turns use first. */
  delegatedBy: string;
}

/** The task as the data of its child's `message.routed` (the session key is the task's own). */
export type ChildMessage = Omit<EventData<'message.routed'>, 'session_key' | 'delegated_by'>;

/** A subagent task's one turn: which agent runs it, in which (new) session, linked to whom, with what text. */
export interface ChildTurn {
  agent: string;
  sessionKey: string;
  link: SessionLink;
  /** The task as its user message, with the parent's channel, chat and `remote`, so the child can do no more. */
  message: ChildMessage;
  /** The task's timeout: it cancels the turn then, and the host gives up on a session that does not answer that. */
  timeoutMs: number;
}

/**
 * What the subagent actors need of the rest of the runtime, and all they reach: run a task's turn and tell how it
 * ended. Aborting `signal` cancels the turn and records `signal.reason`; the child's session (its actors, its todo
 * plan) is released when the turn has ended.
 */
export interface SubagentHost {
  run(child: ChildTurn, signal: AbortSignal): Promise<ChildOutcome>;
}
