import { fromPromise } from 'xstate';
import type { ToolSpec } from '../adapters/providers/provider.js';
import type { ToolRegistry } from '../adapters/tools/registry.js';
import { draftOf, type ChatResponse } from '../bus/index.js';
import type { BuiltPrompt, ModelInput, PromptInput, ToolInput, ToolOutcome, TurnRecord } from '../machines/turn.js';
import type { AgentServices } from './agent-services.js';

/** The tools a turn may use right now: a discovery search can unlock more in the middle of a turn. */
export interface Toolbox {
  registry: ToolRegistry;
  /** Names exposed to the model (turn profile and AGENT.md `tools` applied). */
  names: string[];
  /** The specs of `names`, as sent to the model. */
  specs(): ToolSpec[];
}

/**
 * The real effects of a session's turns, as the actors the turn machine invokes, and its `record` action (the bus).
 * `toolbox` is the session's tools at the moment it is asked.
 */
export function liveTurn(services: AgentServices, toolbox: () => Toolbox) {
  const { bus } = services;
  return {
    actors: {
      buildPrompt: fromPromise<BuiltPrompt, PromptInput>(async ({ input }) => {
        const skills = services.skills();
        return services.prompt.build({
          agent: services.agent,
          channel: input.message.channel,
          chat: input.message.chat,
          text: input.message.text,
          now: services.now(),
          history: input.history,
          skill: input.skill === undefined ? undefined : skills.find((s) => s.name === input.skill),
          skills,
          doc: services.agentDoc(),
          tools: toolbox().names,
          profile: services.config().agents.defaults.turn_profile,
        });
      }),
      callModel: fromPromise<ChatResponse, ModelInput>(({ input, signal }) =>
        services.router.chat(
          input.settings.model_name,
          { system: input.call.system, messages: input.call.messages, tools: toolbox().specs() },
          { signal, correlation: input.keys, onChunk: (chunk) => void bus.publish(draftOf(input.keys, 'provider.chunk', chunk)) },
        ),
      ),
      runTool: fromPromise<ToolOutcome, ToolInput>(async ({ input, signal }) => {
        const box = toolbox();
        const { call, message, keys } = input;
        // A tool the turn does not expose (turn profile, AGENT.md tools list, a hidden MCP tool) is refused here too.
        if (!box.names.includes(call.name)) return { ok: false, content: `tool "${call.name}" is not available in this turn` };
        const result = await box.registry.execute(call.name, call.arguments, {
          agent: services.agent,
          session: keys.session ?? '',
          sessionKey: message.session_key,
          turn: keys.turn,
          channel: message.channel,
          chat: message.chat,
          remote: message.remote,
          workspace: services.workspace,
          signal,
        });
        return { ok: result.ok, content: result.content };
      }),
    },
    actions: {
      record: ({ context }: { context: { keys: PromptInput['keys'] } }, record: TurnRecord) => void bus.publish(draftOf(context.keys, record.type, record.data)),
    },
  };
}
