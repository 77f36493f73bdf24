import type { RecallPort } from '../../adapters/tools/memory/index.js';
import type { ToolContext } from '../../adapters/tools/tool.js';
import type { Config } from '../../store/config/index.js';
import type { LiveRecall } from '../../store/memory/live-recall.js';
import type { RecallViewer } from '../../store/memory/recall-index.js';

/** The agent's recall scope: its `agents.list[]` entry's, else `agents.defaults.memory.scope`. */
export function recallScope(config: Config, agent: string): RecallViewer['scope'] {
  return config.agents.list.find((a) => a.id === agent)?.memory?.scope ?? config.agents.defaults.memory.scope;
}

/** The memory tools' view of recall: the caller's agent, chat and session, under the agent's scope at call time. */
export function recallPort(recall: LiveRecall, config: () => Config): RecallPort {
  const viewer = (context: ToolContext): RecallViewer => ({
    agent: context.agent,
    channel: context.channel,
    chat: context.chat,
    session: context.session,
    scope: recallScope(config(), context.agent),
  });
  return {
    search: async (query, limit, context) =>
      (await recall.get()).find(query, viewer(context), limit, context.workspace),
    file: async (path, context) => (await recall.get()).file(path, context.workspace),
    turn: async (turnId, context) => (await recall.get()).turn(turnId, viewer(context)),
  };
}
