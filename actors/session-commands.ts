import { listMcpText, showMcpText } from '../adapters/mcp/index.js';
import type { CommandInput, CommandOutput } from '../machines/session.js';
import type { AgentServices } from './agent-services.js';
import { HELP_TEXT, parseChatCommand, type ParsedCommand } from './chat-commands.js';

/** The answer to a chat command (and what it asks the session to do), before the model is involved. */
export function runCommand(services: AgentServices, { keys, message, armed }: CommandInput): CommandOutput {
  const { text, commands, channel } = message.data;
  const command = parseChatCommand(text) ?? { name: 'help', args: '' };
  const answer = (reply: string, effect?: CommandOutput['effect']): CommandOutput => ({ command: command.name, args: command.args, text: reply, ...(effect ? { effect } : {}) });
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
    case 'list':
      return answer(list(services, command.args));
    case 'show':
      return answer(show(services, command.args));
    case 'stop':
      // `/stop` is control and never waits in the mailbox; it lands here only where nothing could be running.
      return answer('Nothing is running.');
    default:
      return answer(HELP_TEXT);
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
    return answer(armed ? `Cancelled /use ${armed}.` : 'No skill was armed.', { type: 'skill', event: { type: 'USE_CLEAR' }, ...(draft ? { draft } : {}) });
  }
  const skills = services.skills();
  const skill = skills.find((s) => s.name === skillName);
  if (!skill) return answer(`Unknown skill "${skillName}" (installed: ${skills.map((s) => s.name).join(', ') || 'none'}).`);
  const text = command.args.slice(skillName.length).trim();
  if (text !== '') return answer('', { type: 'turn', skill: skill.name, text });
  return answer(`Skill ${skill.name} will be used for your next message.`, {
    type: 'skill',
    event: { type: 'USE', skill: skill.name },
    draft: { ...keys, type: 'skill.armed', data: { skill: skill.name } },
  });
}

function show(services: AgentServices, what: string): string {
  const server = /^mcp\s+(\S+)$/.exec(what)?.[1];
  if (!server) return 'Usage: /show mcp <server>';
  return services.mcp ? showMcpText(services.mcp.manager, server) : 'MCP is not configured.';
}

function list(services: AgentServices, what: string): string {
  if (what === 'skills') return services.skills().map((s) => `${s.name}: ${s.description}`).join('\n') || 'No skills installed.';
  if (what === 'mcp') return services.mcp ? listMcpText(services.mcp.manager.statuses()) : 'MCP is not configured.';
  if (what === 'plugins') return 'No plugins installed.';
  return 'Usage: /list skills|mcp|plugins';
}
