import { createActor, fromPromise, type Actor, type ActorRefFrom, type InspectionEvent } from 'xstate';
import { mcpDiscoveryMachine, unlockedTools } from '../machines/mcp-discovery.js';
import {
  replyKey,
  sessionMachine,
  type CommandOutput,
  type PrepareInput,
  type Prepared,
  type SessionKeys,
} from '../machines/session.js';
import type { TurnHistory } from '../machines/turn.js';
import { turnMachine, type TurnSettings } from '../machines/turn.js';
import type { Config } from '../store/config/index.js';
import { readHistory } from '../store/log/history.js';
import type { AgentServices } from './agent-services.js';
import { parseChatCommand } from './chat-commands.js';
import { newTurnId } from './ids.js';
import { answerAtOnce, isControl, pluginCommand, runCommand } from './session-commands.js';
import { DELEGATING_TOOLS } from './subagents/agent-registry.js';
import { compactIfLong, isLong, summaryLimits } from './summarizer.js';
import { turnToolbox } from './toolbox.js';
import { liveTurn, type Toolbox } from './turn-actors.js';

export type SessionActor = Actor<typeof sessionMachine>;

type TurnProfile = Config['agents']['defaults']['turn_profile'];
type Media = PrepareInput['message']['data']['media'][number];

/**
 * The settings of a new turn, from the config as it is now, with the agent's model (`delegatedBy`: see `liveTurn`).
 * It streams when its model's entry says so, or when the channel entry its answer goes to shows streaming: one switch
 * on the channel is enough, whatever model answers.
 */
function turnSettings(
  services: AgentServices,
  delegatedBy: string | undefined,
  channel: string | undefined,
): TurnSettings {
  const config = services.config();
  const defaults = config.agents.defaults;
  const modelName = services.model(services.agentDoc(), delegatedBy).primary;
  const shown = channel !== undefined && config.channel_list[channel]?.settings.streaming.enabled === true;
  return {
    model_name: modelName,
    stream: shown || (config.model_list.find((m) => m.model_name === modelName)?.streaming.enabled ?? false),
    max_tool_iterations: defaults.max_tool_iterations,
    loop_detection: defaults.loop_detection,
  };
}

/**
 * The session's tools now: the agent's own (AGENT.md `tools` and the turn profile applied) and, with MCP, the
 * visible MCP tools of its `mcpServers` plus the discovery searches, which a search in the middle of a turn changes.
 * Without MCP nothing changes them mid-turn, and the same names under the same profile reuse one toolbox. A subagent
 * already at `max_depth` is not offered `spawn` and `subagent` (nor, so, the agent registry): a tool it may not use
 * costs prompt tokens and a refused call.
 */
function toolboxes(
  services: AgentServices,
  session: () => SessionActor | undefined,
  sessionId?: string,
): () => Toolbox {
  type Last = {
    mine: readonly string[];
    deepest: boolean;
    profile: TurnProfile | undefined;
    registry: AgentServices['tools'];
    box: Toolbox;
  };
  let last: Last | undefined;
  return () => {
    const doc = services.agentDoc();
    const mine = services.toolNames(doc);
    const deepest = sessionId !== undefined && services.subagents?.atDepthLimit(sessionId) === true;
    const own = deepest ? mine.filter((name) => !DELEGATING_TOOLS.includes(name)) : mine;
    const profile = services.config().agents.defaults.turn_profile;
    const mcp = services.mcp;
    if (!mcp) {
      const registry = services.tools;
      const same = last?.mine === mine && last.deepest === deepest && last.profile === profile;
      if (same && last?.registry === registry) return last.box;
      last = { mine, deepest, profile, registry, box: turnToolbox({ registry, own, profile }) };
      return last.box;
    }
    const self = session();
    const discovery = self?.getSnapshot().children.discovery as ActorRefFrom<typeof mcpDiscoveryMachine> | undefined;
    return turnToolbox({
      registry: services.tools,
      own,
      profile,
      mcp: {
        manager: mcp.manager,
        servers: doc.frontmatter.mcpServers,
        unlocked: discovery ? unlockedTools(discovery.getSnapshot().context) : new Set(),
        found: (tools) => self?.send({ type: 'FOUND', tools }),
      },
    });
  };
}

/** The tools the next turn of a session would have (`tern tool`); `session` is its actor when it is in memory. */
export function nextToolbox(services: AgentServices, session: SessionActor | undefined): Toolbox {
  return toolboxes(services, () => session)();
}

/**
 * The message's text with its voice recordings turned into text (a recording that fails to transcribe is said so),
 * and its pictures and files saved in the workspace and named by their workspace path, for the file tools.
 */
async function withTranscripts(services: AgentServices, input: PrepareInput): Promise<string> {
  const { data } = input.message;
  const files = await savedFiles(services, input);
  const audio = data.media.filter((m) => m.kind === 'audio');
  const text = [data.text, ...files].filter((t) => t.trim()).join('\n');
  if (audio.length === 0) return text;
  const transcribe = services.transcribe;
  if (!transcribe) return text === '' ? '[voice message: no transcription model is configured]' : text;
  const parts: string[] = [];
  for (const clip of audio) {
    try {
      const { text, modelName } = await transcribe(await mediaPath(services, input, clip), clip.mime ?? 'audio/ogg');
      services.bus.publish({
        ...input.keys,
        type: 'message.transcribed',
        data: { message_id: data.message_id, text, model_name: modelName },
      });
      parts.push(`[voice message] ${text}`);
    } catch (error) {
      parts.push(`[voice message that could not be transcribed: ${(error as Error).message}]`);
    }
  }
  return [text, ...parts].filter((t) => t.trim()).join('\n');
}

/** `[image: media/inbound/…]` for each picture, video and file of the message, once saved in the workspace. */
async function savedFiles(services: AgentServices, input: PrepareInput): Promise<string[]> {
  const lines: string[] = [];
  for (const file of input.message.data.media.filter((m) => m.kind !== 'audio')) {
    try {
      const path = await mediaPath(services, input, file);
      const shown = path.startsWith(`${services.workspace}/`) ? path.slice(services.workspace.length + 1) : path;
      lines.push(`[${file.kind}: ${shown}]`);
    } catch (error) {
      lines.push(`[${file.kind} that could not be fetched: ${(error as Error).message}]`);
    }
  }
  return lines;
}

async function mediaPath(services: AgentServices, input: PrepareInput, clip: Media): Promise<string> {
  if (clip.path) return clip.path;
  const channel = input.message.data.reply?.channel;
  if (!clip.file_id || !channel || !services.fetchMedia) throw new Error('the recording cannot be fetched here');
  return services.fetchMedia(
    channel,
    clip.file_id,
    input.message.data.message_id,
    clip.name ?? (clip.kind === 'audio' ? 'voice.ogg' : 'file'),
  );
}

/**
 * The budget's check (the one before a turn starts: a spent budget answers without a turn), MCP servers brought in
 * line with a reloaded config, transcripts, compaction
 * of a long history (unless the turn profile turns history off), and the turn's settings.
 */
async function prepareTurn(
  services: AgentServices,
  input: PrepareInput,
  delegatedBy: string | undefined,
): Promise<Prepared> {
  const judging = services.budget?.check(services.agent, input.keys);
  const budget = judging && (await judging);
  if (budget?.kind === 'stop') return { refused: budget.text };
  await services.mcp?.follow();
  const config = services.config();
  const settings = turnSettings(services, delegatedBy, input.message.data.reply?.channel);
  const { data } = input.message;
  const text = await withTranscripts(services, input);
  const profile = config.agents.defaults.turn_profile;
  const historyOff = profile?.enabled && profile.history.mode === 'off';
  const limits = summaryLimits(config.agents.defaults);
  const history: TurnHistory =
    isLong(input.history, limits) && !historyOff
      ? await compactIfLong(input.history, {
          router: services.router,
          modelName: settings.model_name,
          correlation: input.keys,
          publish: (draft) => void services.bus.publish(draft),
          limits,
        })
      : input.history;
  return {
    keys: { ...input.keys, turn: newTurnId() },
    settings,
    message: {
      message_id: data.message_id,
      channel: data.channel,
      chat: data.chat,
      text,
      session_key: input.key,
      remote: data.remote,
      sender: data.sender,
    },
    history,
    ...(input.skill !== undefined ? { skill: input.skill } : {}),
    ...(budget?.kind === 'go' && budget.notice ? { notice: budget.notice } : {}),
    ...(historyOff ? { history_mode: 'off' as const } : {}),
  };
}

/**
 * Starts the actor of one session: the session machine with its effects provided (history from the log, chat
 * commands, turn preparation, the turn machine with the real model and tools, the bus). Its moves are inspected for
 * the machines page. A subagent task's session (`keys.task`, started by agent `delegatedBy`) starts from nothing but
 * its task.
 */
export function startSession(
  services: AgentServices,
  keys: SessionKeys,
  key: string,
  inspect: (event: InspectionEvent) => void,
  delegatedBy?: string,
): SessionActor {
  let actor: SessionActor | undefined;
  const live = liveTurn(
    services,
    toolboxes(services, () => actor, keys.session),
    delegatedBy,
  );
  const machine = sessionMachine.provide({
    actors: {
      loadHistory: fromPromise<TurnHistory, SessionKeys>(async ({ input }) => {
        if (input.task !== undefined) return { messages: [] };
        const { summary, messages } = readHistory(services.log, input.session);
        return { ...(summary !== undefined ? { summary } : {}), messages: messages.map((m) => m.message) };
      }),
      runCommand: fromPromise<CommandOutput, Parameters<typeof runCommand>[1]>(async ({ input }) =>
        runCommand(services, input),
      ),
      prepareTurn: fromPromise<Prepared, PrepareInput>(({ input }) => prepareTurn(services, input, delegatedBy)),
      turn: turnMachine.provide(live),
      mcpDiscovery: mcpDiscoveryMachine.provide({
        actions: {
          announceUnlocked: (_, { tools, ttl }) =>
            void services.bus.publish({ ...keys, type: 'mcp.unlocked', data: { tools, ttl } }),
          announceHidden: (_, { tools }) => {
            if (tools.length > 0) services.bus.publish({ ...keys, type: 'mcp.hidden', data: { tools } });
          },
        },
      }),
    },
    actions: {
      publish: (_, draft) => void services.bus.publish(draft),
      answerNow: (_, message) => {
        const { drafts, output } = answerAtOnce(services, keys, message);
        for (const draft of drafts) services.bus.publish(draft);
        services.bus.publish({
          ...keys,
          type: 'command.handled',
          data: { command: output.command, args: output.args, reply: output.text },
        });
        const target = message.data.reply;
        services.bus.publish({
          ...keys,
          type: 'reply.requested',
          data: {
            message_id: message.data.message_id,
            outcome: 'command',
            text: output.text,
            key: replyKey(message, undefined),
            ...(target ? { reply: target } : {}),
          },
        });
      },
    },
    guards: {
      // A subagent's task is never a chat command.
      isCommand: (_, message) =>
        keys.task === undefined &&
        (parseChatCommand(message.data.text) !== undefined || pluginCommand(services, message.data.text) !== undefined),
      isControl: (_, message) => keys.task === undefined && isControl(message),
    },
  });
  actor = createActor(machine, {
    id: `session:${keys.session}`,
    input: { keys, key, ...(services.mcp ? { discoveryTtl: services.mcp.ttl } : {}) },
    inspect,
  });
  return actor;
}
