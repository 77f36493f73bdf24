import { CHAT_COMMANDS, type CommandName } from '../adapters/channels/command-names.js';

/** The commands executed before the model (channels declare which of them they support). */
export const REGISTERED_COMMANDS = CHAT_COMMANDS;
export type { CommandName };

export interface ParsedCommand {
  name: CommandName;
  /** The rest of the message after the command word, trimmed. */
  args: string;
}

const COMMAND = /^\/([a-z_]+)(?:@[A-Za-z0-9_]+)?(?:\s+([\s\S]*))?$/;

/** `/use weather Paris?` → `{ name: 'use', args: 'weather Paris?' }`; `/cmd@bot` works as on Telegram. */
export function parseChatCommand(text: string): ParsedCommand | undefined {
  const match = COMMAND.exec(text.trim());
  if (!match) return undefined;
  const name = match[1]!.toLowerCase();
  if (!(REGISTERED_COMMANDS as readonly string[]).includes(name)) return undefined;
  return { name: name as CommandName, args: (match[2] ?? '').trim() };
}

export const HELP_TEXT = [
  'Commands:',
  '/help: this list',
  '/use <skill> [message]: use a skill for the next message, or for this message',
  '/use clear: cancel a pending /use',
  '/clear: clear this conversation (and its todo plan)',
  '/stop: stop the turn that is running and the subagent tasks started here',
  '/subagents: the subagent tasks of this chat that are still running',
  '/approve <id>, /deny <id>: answer a tool call that waits for your approval',
  '/list skills|mcp|plugins: what is installed',
  '/show mcp <server>: the tools of a connected MCP server',
].join('\n');
