import { merge } from 'rxjs';
import { sessionIdOf, type Bus, type Envelope } from '../../bus/index.js';
import type { ChildOutcome } from '../../machines/subagent-task.js';
import type { SubagentHost } from './host.js';

/** How the child's turn ended, from its message's `reply.requested`. */
function outcomeOf(reply: Envelope<'reply.requested'>): ChildOutcome {
  const { outcome, text } = reply.data;
  if (outcome === 'command' || outcome === 'message') return { outcome: 'failed', reply: 'the subagent ran no turn' };
  return { outcome: outcome === 'restarted' ? 'aborted' : outcome, reply: text, ...(reply.turn ? { turn: reply.turn } : {}) };
}

/**
 * The subagent host on the bus: the task is routed as the one message of a new session of its agent, linked to the
 * turn that started it (`parent`, `task`), and its `reply.requested` tells how it ended. Canceling publishes
 * `turn.abort.requested` for its session (a task whose turn has not started yet ends at once); when it has ended,
 * `session.release.requested` lets the session leave its agent. It reaches the agents through these events alone.
 */
export function sessionHost(bus: Bus): SubagentHost {
  return {
    // Not an async function: the task's end is recorded as soon as its turn has ended, with no steps in between.
    run(child, signal) {
      const session = sessionIdOf(child.sessionKey);
      const { message_id } = child.message;
      const keys = { agent: child.agent, session, parent: child.link.parent, task: child.link.task };
      return new Promise<ChildOutcome>((resolve) => {
        let started = false;
        let done = false;
        const finish = (outcome: ChildOutcome): void => {
          if (done) return;
          done = true;
          subscription.unsubscribe();
          signal.removeEventListener('abort', abort);
          // After the session's move that ended the turn, not inside it.
          queueMicrotask(() => bus.publish({ ...keys, type: 'session.release.requested', data: { reason: 'the subagent task ended' } }));
          resolve(outcome);
        };
        const subscription = merge(bus.on('turn.started'), bus.on('reply.requested')).subscribe((event) => {
          if (event.session !== session) return;
          if (event.type === 'turn.started') started = true;
          else if (event.data.message_id === message_id) finish(outcomeOf(event));
        });
        const abort = (): void => {
          bus.publish({ ...keys, type: 'turn.abort.requested', data: { reason: String(signal.reason ?? 'canceled') } });
          if (!started) finish({ outcome: 'aborted', reply: '' });
        };
        bus.publish({
          ...keys,
          type: 'message.routed',
          data: { ...child.message, session_key: child.sessionKey, delegated_by: child.link.delegatedBy },
        });
        if (signal.aborted) abort();
        else signal.addEventListener('abort', abort, { once: true });
      });
    },
  };
}
