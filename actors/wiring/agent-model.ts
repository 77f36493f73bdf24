import type { Config } from '../../store/config/index.js';
import type { AgentDoc } from '../../store/workspace.js';

/** The model of a turn and the models that answer, in order, when it cannot. */
export interface ModelChoice {
  primary: string;
  fallbacks: string[];
}

type AgentModel = Config['agents']['list'][number]['model'];

function choiceOf(model: AgentModel): ModelChoice | undefined {
  if (model === undefined) return undefined;
  if (typeof model === 'string') return model.trim() ? { primary: model.trim(), fallbacks: [] } : undefined;
  return { primary: model.primary, fallbacks: model.fallbacks };
}

/**
 * The model of agent `agent`'s next turn: its `agents.list[].model`, then `agents.defaults.model`, then the first
 * enabled `model_list` entry. A subagent's turn (`delegatedBy` names the agent that started it) first takes that
 * agent's `subagents.model`, and after its own `agents.list` model its AGENT.md `model` (the spec's "model used at
 * delegation").
 */
export function agentModel(config: Config, agent: string, doc: AgentDoc, delegatedBy?: string): ModelChoice {
  const entry = (id: string) => config.agents.list.find((a) => a.id === id);
  const chosen =
    (delegatedBy !== undefined ? choiceOf(entry(delegatedBy)?.subagents?.model) : undefined) ??
    choiceOf(entry(agent)?.model) ??
    (delegatedBy !== undefined ? choiceOf(doc.frontmatter.model) : undefined) ??
    choiceOf(config.agents.defaults.model);
  return chosen ?? { primary: config.model_list.find((m) => m.enabled)?.model_name ?? '', fallbacks: [] };
}
