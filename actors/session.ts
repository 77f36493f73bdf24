import { createActor, type Actor } from 'xstate';
import { draftOf, type Bus, type Correlation } from '../bus/index.js';
import type { PluginCommand } from '../adapters/plugins/api.js';
import type { ModelRouter } from '../adapters/providers/router.js';
import type { ToolRegistry } from '../adapters/tools/registry.js';
import type { TaskView } from '../adapters/tools/subagent/index.js';
import { listMcpText, showMcpText, type McpManager } from '../adapters/mcp/index.js';
import { mcpDiscoveryMachine, unlockedTools } from '../machines/mcp-discovery.js';
import { sessionMachine } from '../machines/session.js';
import { skillOverrideMachine } from '../machines/skill-override.js';
import type { Config } from '../store/config/index.js';
import { emptyHistory, foldHistory, HISTORY_TYPES, type SessionHistory } from '../store/log/history.js';
import type { EventLog } from '../store/log/event-log.js';
import type { SkillInfo } from '../store/skills.js';
import type { AgentDoc } from '../store/workspace.js';
import type { BudgetGuard } from './budget.js';
import { HELP_TEXT, parseChatCommand, type ParsedCommand } from './chat-commands.js';
import type { HookEngine } from './hooks/engine.js';
import type { PluginHost } from './plugins/plugin-host.js';
import { pluginListText } from './plugins/plugin-list.js';
import { newTurnId } from './ids.js';
import { MachineActor } from './machine-actor.js';
import { profileAllows, type PromptBuilder } from './prompt-builder.js';
import type { TodoTool } from './todo-tool.js';
import { isLong, summarizeIfLong } from './summarizer.js';
import { turnToolbox } from './toolbox.js';
import { runTurn, type Toolbox, type TurnHandle, type TurnSettings } from './turn-runner.js';
import type { ModelChoice } from './wiring/agent-model.js';
import { withFallbacks } from './wiring/model-fallbacks.js';

const MESSAGE = { type: 'MESSAGE' } as const;

type TurnProfile = Config['agents']['defaults']['turn_profile'];

/** A message from a channel, already routed to an agent and a session. */
export interface InboundMessage {
  channel: string;
  account: string;
  chat: string;
  sender: string;
  messageId: string;
  text: string;
  /** Sent over a network (every chat channel but the terminal and internal ones). */
  remote: boolean;
  /** The chat commands the channel supports; a registered command outside it is refused. Unset: all. */
  commands?: readonly string[];
  /** Files the channel saved with the message (voice messages are transcribed before the turn). */
  media?: Array<{ kind: 'image' | 'audio' | 'video' | 'file'; path: string; mime: string }>;
}

export type SessionReply =
  | { kind: 'turn'; turn: string; outcome: 'completed' | 'stopped' | 'failed' | 'aborted'; text: string }
  | { kind: 'command'; text: string }
  | { kind: 'none' };

/** A subagent's session is linked to the turn and the task that started it; its events carry both keys. */
export interface SessionLink {
  /** The turn that started the task. */
  parent: string;
  task: string;
  /** The agent of that turn, whose `subagents.model` the child's turns use first. */
  delegatedBy: string;
}

/** The subagent tasks started in a conversation (`actors/subagents`), as its chat commands reach them. */
export interface SessionSubagents {
  /** Cancels every task under the conversation `root` (a session id); returns how many. */
  cancelUnder(root: string, reason: string): number;
  /** The tasks under `root` that are still running, oldest first. */
  runningUnder(root: string): TaskView[];
}

/** What a session borrows from its agent. */
export interface AgentServices {
  agent: string;
  bus: Bus;
  log: EventLog;
  router: ModelRouter;
  tools: ToolRegistry;
  todo: TodoTool;
  prompt: PromptBuilder;
  config: () => Config;
  skills: () => SkillInfo[];
  /** AGENT.md, read again when it changed; a turn reads it once. */
  agentDoc: () => AgentDoc;
  /** Tool names this agent exposes (the `tools` of its AGENT.md applied). */
  toolNames: (doc: AgentDoc) => string[];
  /** The model of a turn of this agent; `delegatedBy` is set for a subagent's turn. */
  model: (doc: AgentDoc, delegatedBy?: string) => ModelChoice;
  /** The agent registry of the prompt for a turn offering these tools (none without spawnable peers). */
  peers?: (tools: readonly string[]) => string | undefined;
  subagents?: SessionSubagents;
  /** Hooks and approvals: each turn asks it for its hook pipeline. */
  hooks?: HookEngine;
  /** Plugin packages: their states for `/list plugins`, and the chat commands they add. */
  plugins?: PluginHost;
  /** The runtime's data workspace (cron jobs live there); an agent's files are in its sandbox. */
  workspace: string;
  now: () => Date;
  /** MCP servers and discovery; absent when `tools.mcp.enabled` is false. */
  mcp?: { manager: McpManager; ttl: number };
  /** Speech to text with the configured transcription model; absent when none is configured. */
  transcribe?: (path: string, mime: string) => Promise<{ text: string; modelName: string }>;
  /** Spending limits, checked before each turn starts. */
  budget?: BudgetGuard;
}

/**
 * One conversation: its turns run one at a time in arrival order, `/stop` reaches the running turn at once,
 * and `/use` arms a skill through the skill-override machine.
 */
export class SessionActor {
  private queue: Promise<unknown> = Promise.resolve();
  private running: TurnHandle | undefined;
  private history: SessionHistory | undefined;
  private readonly override: Actor<typeof skillOverrideMachine>;
  private readonly discovery: Actor<typeof mcpDiscoveryMachine> | undefined;
  /** The session machine: `idle` / `running`, with the number of messages waiting. */
  private readonly lifecycle: MachineActor<typeof sessionMachine>;
  private readonly finished = (): void => this.lifecycle.send({ type: 'FINISHED' });
  private lastToolbox: { own: readonly string[]; profile: TurnProfile | undefined; box: Toolbox } | undefined;
  /** Messages taken into the queue so far, and the last of them a hook's `hard_abort` dropped. */
  private received = 0;
  private dropThrough = 0;

  private readonly correlation: Correlation;

  constructor(private readonly services: AgentServices, readonly key: string, readonly id: string, private readonly link?: SessionLink) {
    this.correlation = link ? { agent: services.agent, session: id, parent: link.parent, task: link.task } : { agent: services.agent, session: id };
    const actorId = `session:${id}`;
    this.lifecycle = new MachineActor(createActor(sessionMachine, { id: actorId }), {
      bus: services.bus,
      correlation: this.correlation,
      id: actorId,
      machine: 'session',
      view: ({ value, context }) => ({ value, shown: { queued: context.queued } }),
    });
    this.override = createActor(skillOverrideMachine, { id: `skill-override:${id}` });
    this.override.subscribe({ error: () => {} });
    this.override.start();
    this.discovery = services.mcp && this.startDiscovery(services.mcp.ttl);
  }

  /** Per session, MCP tools a search found stay unlocked for `ttl` turns; the machine says so on the bus. */
  private startDiscovery(ttl: number): Actor<typeof mcpDiscoveryMachine> {
    const { bus } = this.services;
    const machine = mcpDiscoveryMachine.provide({
      actions: {
        announceUnlocked: (_, { tools, ttl: turns }) => void bus.publish({ ...this.correlation, type: 'mcp.unlocked', data: { tools, ttl: turns } }),
        announceHidden: (_, { tools }) => {
          if (tools.length > 0) bus.publish({ ...this.correlation, type: 'mcp.hidden', data: { tools } });
        },
      },
    });
    const actor = createActor(machine, { id: `mcp-discovery:${this.id}`, input: { ttl } });
    actor.subscribe({ error: () => {} });
    actor.start();
    return actor;
  }

  /**
   * The tools of this session now: the agent's own (`own`, read once per turn), its visible MCP tools (of the
   * turn's AGENT.md `mcpServers`: all when unset) and the discovery searches, which a search in the middle of a
   * turn can change.
   */
  private toolbox(own: readonly string[], servers: readonly string[] | undefined): Toolbox {
    const { services, discovery } = this;
    const profile = services.config().agents.defaults.turn_profile;
    const mcp = services.mcp;
    if (!mcp || !discovery) return this.fixedToolbox(own, profile);
    return turnToolbox({
      registry: services.tools,
      own,
      profile,
      mcp: {
        manager: mcp.manager,
        servers,
        unlocked: unlockedTools(discovery.getSnapshot().context),
        found: (tools) => discovery.send({ type: 'FOUND', tools }),
      },
    });
  }

  /**
   * Without MCP nothing changes the tools in the middle of a turn, and the same names under the same turn profile
   * give the same toolbox: the last one is reused (with its specs) until AGENT.md or the config changes.
   */
  private fixedToolbox(own: readonly string[], profile: TurnProfile | undefined): Toolbox {
    const last = this.lastToolbox;
    if (last?.own === own && last.profile === profile) return last.box;
    const box = turnToolbox({ registry: this.services.tools, own, profile });
    this.lastToolbox = { own, profile, box };
    return box;
  }

  /** The tools the next turn of this session would have, as it would compute them (`tern tool`). */
  nextToolbox(): Toolbox {
    const doc = this.services.agentDoc();
    return this.toolbox(this.services.toolNames(doc), doc.frontmatter.mcpServers);
  }

  /** Control messages skip the queue; everything else waits for the turn before it. */
  handle(message: InboundMessage): Promise<SessionReply> {
    const command = parseChatCommand(message.text);
    if (command && message.commands && !message.commands.includes(command.name)) return Promise.resolve(this.unsupported(command, message));
    if (command?.name === 'stop') return Promise.resolve(this.stop(command));
    if (command?.name === 'approve' || command?.name === 'deny') return Promise.resolve(this.answerApproval(command, message));
    const added = command ? undefined : this.pluginCommand(message.text);
    const number = this.received + 1;
    return this.enqueue(() => {
      if (number <= this.dropThrough) return Promise.resolve(this.dropped(message));
      if (command) return this.command(command, message);
      return added ? this.runPluginCommand(added, message) : this.turn(message, undefined);
    });
  }

  /**
   * A subagent's task as a turn of this (linked) session: no history, no chat commands; aborting `signal` aborts the
   * turn and records `signal.reason` as why.
   */
  delegate(message: InboundMessage, signal: AbortSignal): Promise<SessionReply> {
    return this.enqueue(() => this.turn(message, undefined, signal));
  }

  /** Every message waits for the one before it; `received` counts them (a hook's `hard_abort` drops those queued). */
  private enqueue(work: () => Promise<SessionReply>): Promise<SessionReply> {
    this.lifecycle.send({ type: 'RECEIVED' });
    this.received++;
    const next = this.queue.then(work);
    // The next message waits on the queue, so it never rejects, whatever this one did.
    this.queue = next.then(this.finished, this.finished).catch(() => undefined);
    return next;
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  /** Ends a running turn as aborted (shutdown); returns when it has ended. */
  async abortRunning(reason: string): Promise<void> {
    if (this.running) await this.abortTurn(this.running, reason);
  }

  private async abortTurn(turn: TurnHandle, reason: string): Promise<void> {
    turn.abort(reason);
    await turn.done.catch(() => undefined);
    this.services.bus.publish({ ...this.correlation, turn: turn.id, type: 'turn.aborted', data: { reason } });
  }

  /** Aborts `turn` once `signal` fires (at once if it has); the returned function stops listening. */
  private abortOn(signal: AbortSignal, turn: TurnHandle): () => void {
    const abort = (): void => void this.abortTurn(turn, String(signal.reason ?? 'canceled'));
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
    return () => signal.removeEventListener('abort', abort);
  }

  stopActors(reason: string): void {
    this.override.stop();
    this.discovery?.stop();
    this.lifecycle.stop(reason);
  }

  /** Stops the running turn and every subagent task started from this conversation. */
  private stop(command: ParsedCommand): SessionReply {
    const running = this.running;
    const tasks = this.services.subagents?.cancelUnder(this.id, '/stop in the chat that started it') ?? 0;
    if (running) {
      running.stop();
      // The stopped turn replies "Stopped." itself; answering here too would send two messages.
      return { kind: 'none' };
    }
    if (tasks > 0) return this.reply(command, `Stopped ${tasks} subagent task${tasks === 1 ? '' : 's'}.`);
    return { kind: 'command', text: 'Nothing is running.' };
  }

  /** `/approve <id>` and `/deny <id>` answer a call of this session's turn waiting for the user, at once. */
  private answerApproval(command: ParsedCommand, message: InboundMessage): SessionReply {
    const id = (command.args.split(/\s+/)[0] ?? '').toLowerCase();
    if (id === '') return this.reply(command, `Usage: /${command.name} <id> (the id is in the question, e.g. /${command.name} 3f2a)`);
    const tool = this.services.hooks?.desk.waitingTool(id, this.id);
    if (!tool) return this.reply(command, `No tool call ${id} is waiting for approval here.`);
    const approved = command.name === 'approve';
    this.services.bus.publish({ ...this.correlation, type: 'approval.answered', data: { approval_id: id, approved, by: 'user', sender: message.sender } });
    return this.reply(command, approved ? `Approved: ${tool} goes ahead.` : `Denied: ${tool} will not run.`);
  }

  /** `/word args` where a plugin added `word`. */
  private pluginCommand(text: string): { command: PluginCommand; args: string } | undefined {
    const match = /^\/([a-z][a-z0-9_]*)(?:@[A-Za-z0-9_]+)?(?:\s+([\s\S]*))?$/.exec(text.trim());
    const command = match ? this.services.plugins?.command(match[1]!) : undefined;
    return command ? { command, args: (match?.[2] ?? '').trim() } : undefined;
  }

  private async runPluginCommand({ command, args }: { command: PluginCommand; args: string }, message: InboundMessage): Promise<SessionReply> {
    const context = { agent: this.services.agent, session: this.id, channel: message.channel, chat: message.chat, sender: message.sender };
    const text = await command.run(args, context).catch((error: unknown) => `/${command.name} failed: ${(error as Error)?.message ?? String(error)}`);
    this.services.bus.publish({ ...this.correlation, type: 'command.handled', data: { command: command.name, args, reply: text } });
    return { kind: 'command', text };
  }

  /** A message that waited behind a turn a hook ended with `hard_abort`: not run. */
  private dropped(message: InboundMessage): SessionReply {
    this.services.bus.publish({ ...this.correlation, type: 'message.dropped', data: { message_id: message.messageId, reason: 'a hook ended the turn before it with hard_abort' } });
    return { kind: 'none' };
  }

  private unsupported(command: ParsedCommand, message: InboundMessage): SessionReply {
    const supported = message.commands?.map((c) => `/${c}`).join(', ') || 'none';
    return this.reply(command, `/${command.name} is not supported on ${message.channel} (supported here: ${supported}).`);
  }

  private reply(command: ParsedCommand, text: string): SessionReply {
    this.services.bus.publish({ ...this.correlation, type: 'command.handled', data: { command: command.name, args: command.args, reply: text } });
    return { kind: 'command', text };
  }

  private async command(command: ParsedCommand, message: InboundMessage): Promise<SessionReply> {
    switch (command.name) {
      case 'use':
        return this.use(command, message);
      case 'clear':
        return this.clear(command);
      case 'list':
        return this.reply(command, this.list(command.args));
      case 'show':
        return this.reply(command, this.show(command.args));
      case 'subagents':
        return this.reply(command, this.runningTasks());
      default:
        return this.reply(command, HELP_TEXT);
    }
  }

  private runningTasks(): string {
    const tasks = this.services.subagents?.runningUnder(this.id) ?? [];
    if (tasks.length === 0) return 'No subagent tasks are running in this chat.';
    const seconds = (from: number) => Math.max(0, Math.round((this.services.now().getTime() - from) / 1000));
    const lines = tasks.map((t) => `${t.task_id} ${t.label ? `"${t.label}" ` : ''}(agent ${t.agent_id}): ${t.waiting ? 'waiting for a free slot' : `running for ${seconds(t.started_at ?? t.created_at)} s`}`);
    return [`Running subagent tasks (${tasks.length}):`, ...lines].join('\n');
  }

  private show(what: string): string {
    const server = /^mcp\s+(\S+)$/.exec(what)?.[1];
    if (!server) return 'Usage: /show mcp <server>';
    return this.services.mcp ? showMcpText(this.services.mcp.manager, server) : 'MCP is not configured.';
  }

  private list(what: string): string {
    if (what === 'skills') {
      // The agent's skills (its AGENT.md or agents.list entry narrows them), as its turn profile lets them through.
      const profile = this.services.config().agents.defaults.turn_profile;
      const usable = this.services.skills().filter((s) => profileAllows(profile, 'skills', s.name));
      return usable.map((s) => `${s.name}: ${s.description}`).join('\n') || `No skills for agent ${this.services.agent}.`;
    }
    if (what === 'mcp') return this.services.mcp ? listMcpText(this.services.mcp.manager.statuses()) : 'MCP is not configured.';
    if (what === 'plugins') return pluginListText(this.services.plugins?.rows() ?? []);
    return 'Usage: /list skills|mcp|plugins';
  }

  private async use(command: ParsedCommand, inbound: InboundMessage): Promise<SessionReply> {
    const [skillName = ''] = command.args.split(/\s+/);
    if (skillName === '') return this.reply(command, 'Usage: /use <skill> [message], or /use clear');
    if (skillName === 'clear') {
      const armed = this.override.getSnapshot().context.armed;
      this.override.send({ type: 'USE_CLEAR' });
      if (armed) this.services.bus.publish({ ...this.correlation, type: 'skill.disarmed', data: { skill: armed } });
      return this.reply(command, armed ? `Cancelled /use ${armed}.` : 'No skill was armed.');
    }
    const skill = this.services.skills().find((s) => s.name === skillName);
    if (!skill) {
      const known = this.services.skills().map((s) => s.name).join(', ') || 'none';
      return this.reply(command, `Unknown skill "${skillName}" (installed: ${known}).`);
    }
    const message = command.args.slice(skillName.length).trim();
    if (message === '') {
      this.override.send({ type: 'USE', skill: skill.name });
      this.services.bus.publish({ ...this.correlation, type: 'skill.armed', data: { skill: skill.name } });
      return this.reply(command, `Skill ${skill.name} will be used for your next message.`);
    }
    this.override.send({ type: 'USE', skill: skill.name, message });
    return this.turn({ ...inbound, text: message }, skill);
  }

  private async clear(command: ParsedCommand): Promise<SessionReply> {
    this.services.bus.publish({ ...this.correlation, type: 'session.cleared', data: { session_key: this.key } });
    this.history = emptyHistory();
    this.services.todo.clear(this.services.agent, this.id);
    this.override.send({ type: 'SESSION_CLEARED' });
    this.discovery?.send({ type: 'SESSION_CLEARED' });
    return this.reply(command, 'Conversation cleared.');
  }

  private loadHistory(): SessionHistory {
    this.history ??= this.services.log.read({ session: this.id, type: HISTORY_TYPES }).reduce(foldHistory, emptyHistory());
    return this.history;
  }

  /** The history, summarized first when it has grown long (unless the turn profile turns history off). */
  private async compactedHistory(history: SessionHistory, modelName: string): Promise<SessionHistory> {
    const profile = this.services.config().agents.defaults.turn_profile;
    if (profile?.enabled && profile.history.mode === 'off') return history;
    const summary = await summarizeIfLong(history, { bus: this.services.bus, router: this.services.router, modelName, correlation: this.correlation });
    if (summary) this.history = foldHistory(history, summary);
    return this.history ?? history;
  }

  private settings(model: ModelChoice): TurnSettings {
    const config = this.services.config();
    const defaults = config.agents.defaults;
    const modelName = model.primary;
    return {
      model_name: modelName,
      stream: config.model_list.find((m) => m.model_name === modelName)?.streaming.enabled ?? false,
      max_tool_iterations: defaults.max_tool_iterations,
      loop_detection: defaults.loop_detection,
    };
  }

  private skillFor(forced: SkillInfo | undefined): SkillInfo | undefined {
    if (forced) return forced;
    // Most messages find nothing armed and nothing to clear: the machine's `can` says so without a step.
    if (this.override.getSnapshot().can(MESSAGE)) this.override.send(MESSAGE);
    const applies = this.override.getSnapshot().context.applies;
    return applies ? this.services.skills().find((s) => s.name === applies) : undefined;
  }

  /** The message with its voice recordings turned into text; a recording that fails to transcribe is said so. */
  private async withTranscripts(message: InboundMessage, audio: NonNullable<InboundMessage['media']>, transcribe: NonNullable<AgentServices['transcribe']>): Promise<InboundMessage> {
    const parts: string[] = [];
    for (const clip of audio) {
      try {
        const { text, modelName } = await transcribe(clip.path, clip.mime);
        this.services.bus.publish({ ...this.correlation, type: 'message.transcribed', data: { message_id: message.messageId, text, model_name: modelName } });
        parts.push(`[voice message] ${text}`);
      } catch (error) {
        parts.push(`[voice message that could not be transcribed: ${(error as Error).message}]`);
      }
    }
    return { ...message, text: [message.text, ...parts].filter((t) => t.trim()).join('\n') };
  }

  // Most turns have no voice message and a short history: they await nothing but the turn itself.
  private async turn(received: InboundMessage, forced: SkillInfo | undefined, cancel?: AbortSignal): Promise<SessionReply> {
    const audio = received.media?.filter((m) => m.kind === 'audio') ?? [];
    const transcribe = this.services.transcribe;
    const message = audio.length > 0 && transcribe ? await this.withTranscripts(received, audio, transcribe) : received;
    const { bus } = this.services;
    const services = this.services;
    // Budget: the one check before a turn starts. A spent budget answers without a turn (and without a model call).
    const judging = services.budget?.check(services.agent, this.correlation);
    const budget = judging && (await judging);
    if (budget?.kind === 'stop') return { kind: 'command', text: budget.text };
    const skill = this.skillFor(forced);
    const id = newTurnId();
    const doc = services.agentDoc();
    const model = services.model(doc, this.link?.delegatedBy);
    const settings = this.settings(model);
    // A subagent starts from nothing but its task.
    const loaded = this.link ? emptyHistory() : this.loadHistory();
    const history = isLong(loaded) ? await this.compactedHistory(loaded, settings.model_name) : loaded;
    const started = bus.publish(draftOf(Object.assign({}, this.correlation, { turn: id }), 'turn.started', {
      message_id: message.messageId, channel: message.channel, chat: message.chat, text: message.text, session_key: this.key, skill: skill?.name, settings,
    }));
    this.history = foldHistory(history, started);
    const own = services.toolNames(doc);
    const servers = doc.frontmatter.mcpServers;
    // Without MCP nothing changes the tools in the middle of a turn: one toolbox serves the whole turn.
    const fixed = services.mcp ? undefined : this.toolbox(own, servers);
    // Most turns have no hooks and need no approval: they build no pipeline.
    const hooks = services.hooks?.active() && services.hooks.forTurn({
      keys: Object.assign({}, this.correlation, { turn: id }),
      meta: { agent: services.agent, session: this.id, session_key: this.key, turn: id, channel: message.channel, chat: message.chat },
      offered: (name) => (fixed ?? this.toolbox(own, servers)).names.includes(name),
    });
    const handle = runTurn(id, this.correlation, settings, {
      bus,
      router: withFallbacks(services.router, model.fallbacks, (draft) => bus.publish(draft)),
      toolbox: () => fixed ?? this.toolbox(own, servers),
      buildPrompt: () =>
        services.prompt.build({
          agent: services.agent,
          channel: message.channel,
          chat: message.chat,
          text: message.text,
          now: services.now(),
          history,
          skill,
          skills: services.skills(),
          doc,
          tools: (fixed ?? this.toolbox(own, servers)).names,
          profile: services.config().agents.defaults.turn_profile,
          agents: services.peers?.((fixed ?? this.toolbox(own, servers)).names),
        }),
      toolContext: {
        agent: services.agent,
        session: this.id,
        sessionKey: this.key,
        channel: message.channel,
        chat: message.chat,
        remote: message.remote,
        workspace: services.workspace,
      },
      hooks: hooks || undefined,
      preferNativeSearch: services.config().tools.web.enabled && services.config().tools.web.prefer_native,
    });
    this.running = handle;
    const unhook = cancel && this.abortOn(cancel, handle);
    try {
      const { output, ending } = await handle.done;
      this.discovery?.send({ type: 'TURN_ENDED' });
      if (ending?.type === 'turn.failed' && ending.data.code === 'hook_hard_abort') this.dropThrough = this.received;
      if (ending) this.history = foldHistory(this.history, ending);
      // At 80% of a budget the reply says so once (the turn's recorded reply stays the model's own).
      const text = budget?.kind === 'go' && budget.notice ? `${output.reply}\n\n${budget.notice}` : output.reply;
      return { kind: 'turn', turn: id, outcome: output.outcome, text };
    } finally {
      this.running = undefined;
      unhook?.();
    }
  }
}
