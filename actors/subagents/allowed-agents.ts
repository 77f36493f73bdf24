import { ToolError } from '../../adapters/tools/tool.js';
import type { Config } from '../../store/config/index.js';

/**
 * The agents `agent` may hand tasks to besides itself: its `subagents.allow_agents` among the agents of
 * `agents.list` (`["*"]` = all of them), sorted by id so whatever is built from the list stays byte-stable.
 */
export function allowedPeers(config: Config, agent: string): string[] {
  const allow = config.agents.list.find((a) => a.id === agent)?.subagents?.allow_agents ?? [];
  const everyone = allow.includes('*');
  return config.agents.list
    .map((a) => a.id)
    .filter((id) => id !== agent && (everyone || allow.includes(id)))
    .sort();
}

/** The agent that runs a task `agent` hands on: itself unless it names a peer it is allowed to. */
export function targetAgent(config: Config, agent: string, requested: string | undefined): string {
  if (requested === undefined || requested === agent) return agent;
  const known = config.agents.list.map((a) => a.id);
  if (!known.includes(requested)) {
    throw new ToolError(
      'unknown_agent',
      `there is no agent "${requested}" (agents.list has: ${known.join(', ') || 'none'}); ` +
        'leave agent_id out to run the task yourself',
    );
  }
  const peers = allowedPeers(config, agent);
  if (!peers.includes(requested)) {
    throw new ToolError(
      'agent_not_allowed',
      `agent "${agent}" is not allowed to hand tasks to "${requested}" ` +
        `(its subagents.allow_agents allows: ${peers.join(', ') || 'none'})`,
    );
  }
  return requested;
}
