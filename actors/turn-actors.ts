import { fromPromise } from 'xstate';
import { WEB_SEARCH_TOOL } from '../adapters/providers/native-search.js';
import type { ToolSpec } from '../adapters/providers/provider.js';
import type { RouterCallOptions } from '../adapters/providers/router.js';
import type { ToolRegistry } from '../adapters/tools/registry.js';
import type { ToolContext } from '../adapters/tools/tool.js';
import { draftOf, type ChatResponse, type ToolCall } from '../bus/index.js';
import type {
  BuiltPrompt,
  ModelInput,
  PromptInput,
  ToolInput,
  ToolOutcome,
  TurnKeys,
  TurnRecord,
} from '../machines/turn.js';
import type { AgentServices } from './agent-services.js';
import { DEFAULT_ANSWER_TOKENS, fitContextWindow } from './context-window.js';
import type { RunOutcome, TurnHooks } from './hooks/turn-hooks.js';
import { withFallbacks } from './wiring/model-fallbacks.js';

/** The tools a turn may use right now: a discovery search can unlock more in the middle of a turn. */
export interface Toolbox {
  registry: ToolRegistry;
  /** Names exposed to the model (turn profile and AGENT.md tools list applied). */
  names: string[];
  /** The specs of `names`, as sent to the model. */
  specs(): ToolSpec[];
}

/** A tool's outcome for the hooks, which must know a sandbox refusal to leave it alone. */
async function executeNotingRefusal(registry: ToolRegistry, call: ToolCall, context: ToolContext): Promise<RunOutcome> {
  let refused = false;
  const result = await registry.execute(call.name, call.arguments, context, () => (refused = true));
  return { ...outcomeOf(result), refused };
}

/** What the turn keeps of a tool's result: its text, and the images the model is shown. */
function outcomeOf(result: Pick<RunOutcome, 'ok' | 'content' | 'images'>): ToolOutcome {
  return result.ok && result.images?.length
    ? { ok: true, content: result.content, images: result.images }
    : { ok: result.ok, content: result.content };
}

/**
 * The real effects of a session's turns, as the actors the turn machine invokes, and its `record` action (the bus).
 * `toolbox` is the session's tools at the moment it is asked; `delegatedBy` names the agent whose subagent task the
 * session runs (its model is chosen first).
 */
export function liveTurn(services: AgentServices, toolbox: () => Toolbox, delegatedBy?: string) {
  const { bus } = services;
  /**
   * The hook pipeline of the session's running turn (one turn at a time), built with its prompt; absent when no hook
   * intercepts and no tool needs approval.
   */
  let pipeline: { turn: string; hooks: TurnHooks | undefined } | undefined;
  const hooksOf = (keys: TurnKeys): TurnHooks | undefined =>
    pipeline?.turn === keys.turn ? pipeline.hooks : undefined;
  return {
    actors: {
      buildPrompt: fromPromise<BuiltPrompt, PromptInput>(async ({ input }) => {
        const { keys, message } = input;
        const engine = services.hooks;
        pipeline = {
          turn: keys.turn,
          hooks: engine?.active()
            ? engine.forTurn({
                keys,
                meta: {
                  agent: services.agent,
                  session: keys.session ?? '',
                  session_key: message.session_key,
                  turn: keys.turn,
                  channel: message.channel,
                  chat: message.chat,
                },
                offered: (name) => toolbox().names.includes(name),
                ...(message.sender !== undefined ? { asker: message.sender } : {}),
              })
            : undefined,
        };
        const skills = services.skills();
        const names = toolbox().names;
        const built = services.prompt.build({
          agent: services.agent,
          channel: message.channel,
          chat: message.chat,
          text: message.text,
          now: services.now(),
          history: input.history,
          skill: input.skill === undefined ? undefined : skills.find((s) => s.name === input.skill),
          skills,
          doc: services.agentDoc(),
          tools: names,
          profile: services.config().agents.defaults.turn_profile,
          agents: services.peers?.(names),
          splitOnMarker: services.config().agents.defaults.split_on_marker,
        });
        const { context_window, max_tokens } = services.config().agents.defaults;
        if (context_window === undefined) return built;
        const answerTokens = max_tokens ?? DEFAULT_ANSWER_TOKENS;
        const offered = toolbox()
          .specs()
          .filter((spec) => built.tools.includes(spec.name));
        return fitContextWindow(built, offered, { contextWindow: context_window, answerTokens });
      }),
      callModel: fromPromise<ChatResponse, ModelInput>(({ input, signal }) => {
        const { keys, settings, call } = input;
        const box = toolbox();
        const web = services.config().tools.web;
        const nativeSearch = web.enabled && web.prefer_native && box.names.includes(WEB_SEARCH_TOOL);
        const router = withFallbacks(
          services.router,
          services.model(services.agentDoc(), delegatedBy).fallbacks,
          (draft) => void bus.publish(draft),
        );
        const options: RouterCallOptions = {
          signal,
          correlation: keys,
          onChunk: (chunk) => void bus.publish(draftOf(keys, 'provider.chunk', chunk)),
        };
        // A streaming turn streams from every model it tries; otherwise each entry's own switch decides.
        const stream = settings.stream ? { stream: true } : {};
        const hooks = hooksOf(keys);
        const asked = (system: string, messages: typeof call.messages) => ({
          system,
          messages,
          tools: box.specs(),
          nativeSearch,
          ...stream,
        });
        if (!hooks) return router.chat(settings.model_name, asked(call.system, call.messages), options);
        // Hooks may change the request (not the tools offered) and the answer.
        const request = { model: settings.model_name, system: call.system, messages: call.messages, tools: box.names };
        return hooks.callModel(call.iteration, request, signal, (changed) =>
          router.chat(changed.model, asked(changed.system, changed.messages), options),
        );
      }),
      runTool: fromPromise<ToolOutcome, ToolInput>(async ({ input, signal }) => {
        const box = toolbox();
        const { call, message, keys } = input;
        // A tool the turn does not expose (turn profile, AGENT.md tools list, a hidden MCP tool) is refused here too,
        // before any hook is asked: no hook can bring it back.
        if (!box.names.includes(call.name))
          return { ok: false, content: `tool "${call.name}" is not available in this turn` };
        const context: ToolContext = {
          agent: services.agent,
          session: keys.session ?? '',
          sessionKey: message.session_key,
          turn: keys.turn,
          channel: message.channel,
          chat: message.chat,
          remote: message.remote,
          workspace: services.workspace,
          signal,
        };
        const hooks = hooksOf(keys);
        const result = hooks
          ? await hooks.runTool(call, signal, (run) => executeNotingRefusal(box.registry, run, context))
          : await box.registry.execute(call.name, call.arguments, context);
        return outcomeOf(result);
      }),
    },
    actions: {
      record: ({ context }: { context: { keys: PromptInput['keys'] } }, record: TurnRecord) =>
        void bus.publish(draftOf(context.keys, record.type, record.data)),
    },
  };
}
