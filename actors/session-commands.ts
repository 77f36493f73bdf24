import { listMcpText, showMcpText } from './mcp/index.js';
import type { PluginCommand } from '../adapters/plugins/api.js';
import type { EventDraft } from '../bus/index.js';
import type { CommandInput, CommandOutput, SessionKeys, SessionMessage } from '../machines/session.js';
import type { AgentServices } from './agent-services.js';
import { mayAnswer } from './hooks/approval-rules.js';
import { HELP_TEXT, parseChatCommand, type ParsedCommand } from './chat-commands.js';
import { pluginListText } from './plugins/plugin-list.js';
import { profileAllows } from './prompt-builder.js';

/** `/word args` where a plugin added `word` (a registered chat command is never a plugin's). */
export function pluginCommand(
  services: AgentServices,
  text: string,
): { command: PluginCommand; args: string } | undefined {
  if (parseChatCommand(text)) return undefined;
  const match = /^\/([a-z][a-z0-9_]*)(?:@[A-Za-z0-9_]+)?(?:\s+([\s\S]*))?$/.exec(text.trim());
  const command = match ? services.plugins?.command(match[1]!) : undefined;
  return command ? { command, args: (match?.[2] ?? '').trim() } : undefined;
}

/**
 * Commands that only read (the help, what is installed, what runs): answered at once, never behind the running turn,
 * so `/subagents` can show what that turn started.
 */
const READ_ONLY: ReadonlySet<string> = new Set(['start', 'help', 'list', 'show', 'subagents']);

/**
 * A chat command the session answers at once, never behind the running turn: `/approve` and `/deny` answer that turn,
 * the read-only ones change nothing it depends on. A command the channel does not support waits in the mailbox for
 * its refusal, as any other message.
 */
export function isControl(message: SessionMessage): boolean {
  const command = parseChatCommand(message.data.text);
  const { commands } = message.data;
  if (!command || (commands && !commands.includes(command.name))) return false;
  return command.name === 'approve' || command.name === 'deny' || READ_ONLY.has(command.name);
}

/** The answer to a control command (`isControl`) and what to publish with it. */
export function answerAtOnce(
  services: AgentServices,
  keys: SessionKeys,
  message: SessionMessage,
): { drafts: EventDraft[]; output: CommandOutput } {
  const command = parseChatCommand(message.data.text)!;
  if (command.name === 'approve' || command.name === 'deny') return answerApproval(services, keys, message);
  return {
    drafts: [],
    output: { command: command.name, args: command.args, text: readOnlyAnswer(services, keys, command) },
  };
}

/** `/help` (and `/start`), `/list`, `/show`, `/subagents`: text from the agent's services, nothing changed. */
function readOnlyAnswer(services: AgentServices, keys: SessionKeys, command: ParsedCommand): string {
  switch (command.name) {
    case 'list':
      return list(services, command.args);
    case 'show':
      return show(services, command.args);
    case 'subagents':
      return runningTasks(services, keys.session);
    default:
      return HELP_TEXT;
  }
}

/**
 * `/approve <id>` and `/deny <id>` answer a call of this session's turn waiting for the user: what to publish
 * (`approval.answered` when one waits) and the answer.
 */
function answerApproval(
  services: AgentServices,
  keys: SessionKeys,
  message: SessionMessage,
): { drafts: EventDraft[]; output: CommandOutput } {
  const command = parseChatCommand(message.data.text)!;
  const answer = (text: string): CommandOutput => ({ command: command.name, args: command.args, text });
  const id = (command.args.split(/\s+/)[0] ?? '').toLowerCase();
  if (id === '')
    return {
      drafts: [],
      output: answer(`Usage: /${command.name} <id> (the id is in the question, e.g. /${command.name} 3f2a)`),
    };
  const waiting = services.hooks?.desk.waitingCall(id, keys.session);
  if (!waiting) return { drafts: [], output: answer(`No tool call ${id} is waiting for approval here.`) };
  const { sender, sender_aliases: aliases = [], reply } = message.data;
  const approver = { sender, aliases, ...(reply ? { channel: reply.channel } : {}) };
  if (!mayAnswer(services.config(), waiting.asker, approver)) {
    return { drafts: [], output: answer(`Only the person who asked (or an owner of this bot) can answer ${id}.`) };
  }
  const { tool } = waiting;
  const approved = command.name === 'approve';
  const answered: EventDraft<'approval.answered'> = {
    ...keys,
    type: 'approval.answered',
    data: { approval_id: id, approved, by: 'user', sender: message.data.sender },
  };
  return {
    drafts: [answered as EventDraft],
    output: answer(approved ? `Approved: ${tool} goes ahead.` : `Denied: ${tool} will not run.`),
  };
}

/** The answer to a chat command (and what it asks the session to do), before the model is involved. */
export async function runCommand(
  services: AgentServices,
  { keys, message, armed }: CommandInput,
): Promise<CommandOutput> {
  const { text, commands, channel } = message.data;
  const added = pluginCommand(services, text);
  if (added) {
    const { command, args } = added;
    const context = {
      agent: services.agent,
      session: keys.session,
      channel,
      chat: message.data.chat,
      sender: message.data.sender,
    };
    const reply = await command
      .run(args, context)
      .catch((error: unknown) => `/${command.name} failed: ${(error as Error)?.message ?? String(error)}`);
    return { command: command.name, args, text: reply };
  }
  const command = parseChatCommand(text) ?? { name: 'help', args: '' };
  const answer = (reply: string, effect?: CommandOutput['effect']): CommandOutput => ({
    command: command.name,
    args: command.args,
    text: reply,
    ...(effect ? { effect } : {}),
  });
  if (commands && !commands.includes(command.name)) {
    const supported = commands.map((c) => `/${c}`).join(', ') || 'none';
    return answer(`/${command.name} is not supported on ${channel} (supported here: ${supported}).`);
  }
  switch (command.name) {
    case 'use':
      return use(services, command, armed, keys, answer);
    case 'clear':
      services.todo.clear(keys.agent, keys.session);
      return answer('Conversation cleared.', { type: 'clear' });
    case 'stop':
      // `/stop` is control and never waits in the mailbox; it lands here only where nothing could be running.
      return answer('Nothing is running.');
    default:
      return answer(readOnlyAnswer(services, keys, command));
  }
}

function use(
  services: AgentServices,
  command: ParsedCommand,
  armed: string | null,
  keys: CommandInput['keys'],
  answer: (reply: string, effect?: CommandOutput['effect']) => CommandOutput,
): CommandOutput {
  const [skillName = ''] = command.args.split(/\s+/);
  if (skillName === '') return answer('Usage: /use <skill> [message], or /use clear');
  if (skillName === 'clear') {
    const draft = armed ? { ...keys, type: 'skill.disarmed' as const, data: { skill: armed } } : undefined;
    return answer(armed ? `Cancelled /use ${armed}.` : 'No skill was armed.', {
      type: 'skill',
      event: { type: 'USE_CLEAR' },
      ...(draft ? { draft } : {}),
    });
  }
  const skills = services.skills();
  const skill = skills.find((s) => s.name === skillName);
  if (!skill)
    return answer(`Unknown skill "${skillName}" (installed: ${skills.map((s) => s.name).join(', ') || 'none'}).`);
  const text = command.args.slice(skillName.length).trim();
  if (text !== '') return answer('', { type: 'turn', skill: skill.name, text });
  return answer(`Skill ${skill.name} will be used for your next message.`, {
    type: 'skill',
    event: { type: 'USE', skill: skill.name },
    draft: { ...keys, type: 'skill.armed', data: { skill: skill.name } },
  });
}

function runningTasks(services: AgentServices, session: string): string {
  const tasks = services.subagents?.runningUnder(session) ?? [];
  if (tasks.length === 0) return 'No subagent tasks are running in this chat.';
  const seconds = (from: number) => Math.max(0, Math.round((services.now().getTime() - from) / 1000));
  const lines = tasks.map(
    (t) =>
      `${t.task_id} ${t.label ? `"${t.label}" ` : ''}(agent ${t.agent_id}): ` +
      `${t.waiting ? 'waiting for a free slot' : `running for ${seconds(t.started_at ?? t.created_at)} s`}`,
  );
  return [`Running subagent tasks (${tasks.length}):`, ...lines].join('\n');
}

function show(services: AgentServices, what: string): string {
  const server = /^mcp\s+(\S+)$/.exec(what)?.[1];
  if (!server) return 'Usage: /show mcp <server>';
  return services.mcp ? showMcpText(services.mcp.manager, server) : 'MCP is not configured.';
}

function list(services: AgentServices, what: string): string {
  if (what === 'skills') {
    // The agent's skills (its AGENT.md or agents.list entry narrows them), as its turn profile lets them through.
    const profile = services.config().agents.defaults.turn_profile;
    const usable = services.skills().filter((s) => profileAllows(profile, 'skills', s.name));
    return usable.map((s) => `${s.name}: ${s.description}`).join('\n') || `No skills for agent ${services.agent}.`;
  }
  if (what === 'mcp') return services.mcp ? listMcpText(services.mcp.manager.statuses()) : 'MCP is not configured.';
  if (what === 'plugins') return pluginListText(services.plugins?.rows() ?? []);
  return 'Usage: /list skills|mcp|plugins';
}
