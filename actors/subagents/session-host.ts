import type { AgentActor } from '../agent.js';
import type { SubagentHost } from './host.js';

/** The subagent host on today's actors: the task runs as the one turn of a linked session of its agent. */
export function sessionHost(agentOf: (id: string) => AgentActor): SubagentHost {
  return {
    async run(child, signal) {
      const agent = agentOf(child.agent);
      const session = agent.openDelegated(child.sessionKey, child.link);
      try {
        const reply = await session.delegate(child.message, signal);
        if (reply.kind !== 'turn') return { outcome: 'failed', reply: 'the subagent ran no turn' };
        return { outcome: reply.outcome, reply: reply.text, turn: reply.turn };
      } finally {
        agent.releaseDelegated(child.sessionKey);
      }
    },
  };
}
