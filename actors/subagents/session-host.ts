import {
  RequestAbortedError,
  RequestTimeoutError,
  sessionIdOf,
  type Bus,
  type Envelope,
  type RequestClock,
} from '../../bus/index.js';
import type { ChildOutcome } from '../../machines/subagent-task.js';
import type { SubagentHost } from './host.js';

/** How the child's turn ended, from its message's `reply.requested`. */
function outcomeOf(reply: Envelope<'reply.requested'>): ChildOutcome {
  const { outcome, text } = reply.data;
  if (outcome === 'command' || outcome === 'message') return { outcome: 'failed', reply: 'the subagent ran no turn' };
  return {
    outcome: outcome === 'restarted' ? 'aborted' : outcome,
    reply: text,
    ...(reply.turn ? { turn: reply.turn } : {}),
  };
}

/** How long a task's session may take to answer after the task's own timeout canceled its turn. */
export const CANCEL_GRACE_MS = 60_000;

/**
 * The subagent host on the bus: the task is routed as the one message of a new session of its agent, linked to the
 * turn that started it (`parent`, `task`), and its `reply.requested` tells how it ended. Canceling publishes
 * `turn.abort.requested` for its session (a task whose turn has not started yet ends at once); when it has ended,
 * `session.release.requested` lets the session leave its agent. It reaches the agents through these events alone.
 * A session that never answers fails the task `CANCEL_GRACE_MS` after the task's timeout.
 */
export function sessionHost(bus: Bus, clock?: RequestClock): SubagentHost {
  return {
    // Not an async function: the task's end is recorded as soon as its turn has ended, with no steps in between.
    run(child, signal) {
      const session = sessionIdOf(child.sessionKey);
      const { message_id } = child.message;
      const keys = { agent: child.agent, session, parent: child.link.parent, task: child.link.task };
      let started = false;
      // Aborted when the task is canceled before its turn started: a started turn answers the cancel itself.
      const unstarted = new AbortController();
      const abort = (): void => {
        bus.publish({ ...keys, type: 'turn.abort.requested', data: { reason: String(signal.reason ?? 'canceled') } });
        if (!started) unstarted.abort();
      };
      const draft = {
        ...keys,
        type: 'message.routed' as const,
        data: { ...child.message, session_key: child.sessionKey, delegated_by: child.link.delegatedBy },
      };
      const ended = bus.request(draft, {
        reply: {
          on: ['turn.started', 'reply.requested'],
          pick: (event): ChildOutcome | undefined => {
            if (event.session !== session) return undefined;
            if (event.type === 'turn.started') started = true;
            else if (event.data.message_id === message_id) return outcomeOf(event);
            return undefined;
          },
        },
        timeoutMs: child.timeoutMs + CANCEL_GRACE_MS,
        signal: unstarted.signal,
        ...(clock ? { clock } : {}),
      });
      if (signal.aborted) abort();
      else signal.addEventListener('abort', abort, { once: true });
      const finish = (outcome: ChildOutcome): ChildOutcome => {
        signal.removeEventListener('abort', abort);
        // After the session's move that ended the turn, not inside it.
        const release = { reason: 'the subagent task ended' };
        queueMicrotask(() => bus.publish({ ...keys, type: 'session.release.requested', data: release }));
        return outcome;
      };
      return ended.then(finish, (error: unknown) => {
        if (error instanceof RequestAbortedError) return finish({ outcome: 'aborted', reply: '' });
        if (error instanceof RequestTimeoutError) {
          return finish({ outcome: 'failed', reply: "the subagent's session did not answer" });
        }
        throw error;
      });
    },
  };
}
