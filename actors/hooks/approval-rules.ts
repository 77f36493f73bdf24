import picomatch from 'picomatch';
import { senderListed } from '../../adapters/channels/trigger.js';
import type { ToolCall } from '../../bus/index.js';
import type { Config } from '../../store/config/index.js';

/** Tools whose config block has `require_approval`. */
const APPROVAL_BLOCKS = [
  'exec',
  'cron',
  'read_file',
  'write_file',
  'edit_file',
  'append_file',
  'send_file',
  'message',
  'todo',
  'search_files',
] as const;
type ApprovalBlock = (typeof APPROVAL_BLOCKS)[number];

const isBlock = (name: string): name is ApprovalBlock => (APPROVAL_BLOCKS as readonly string[]).includes(name);

const mcpMatchers = new WeakMap<readonly string[], (name: string) => boolean>();

function mcpMatcher(patterns: readonly string[]): (name: string) => boolean {
  let matcher = mcpMatchers.get(patterns);
  if (!matcher) {
    matcher = patterns.length === 0 ? () => false : picomatch([...patterns]);
    mcpMatchers.set(patterns, matcher);
  }
  return matcher;
}

/** Whether the user must approve a call of this tool in the chat first (`tools.<name>.require_approval`). */
export function requiresApproval(config: Config, tool: string): boolean {
  if (isBlock(tool)) return config.tools[tool].require_approval;
  return tool.startsWith('mcp_') && mcpMatcher(config.tools.mcp.require_approval)(tool);
}

/** Whether any tool asks for approval: without that (and without hooks) a turn needs no hook pipeline. */
export function anyApprovals(config: Config): boolean {
  return (
    APPROVAL_BLOCKS.some((name) => config.tools[name].require_approval) || config.tools.mcp.require_approval.length > 0
  );
}

const clip = (text: string, max = 400): string => (text.length > max ? `${text.slice(0, max)}…` : text);
const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value ?? ''));

/** What the call is about to do, in the words the chat shows. */
function action(call: ToolCall): string {
  const args = call.arguments;
  switch (call.name) {
    case 'exec':
      return `exec wants to run \`${clip(text(args.command))}\``;
    case 'write_file':
      return `write_file wants to write ${clip(text(args.path))}`;
    case 'edit_file':
      return `edit_file wants to edit ${clip(text(args.path))}`;
    case 'append_file':
      return `append_file wants to append to ${clip(text(args.path))}`;
    default:
      return `${call.name} wants to run with ${clip(JSON.stringify(args))}`;
  }
}

/** `exec wants to run \`ls\` — reply /approve 3f2a or /deny 3f2a` */
export function approvalPrompt(call: ToolCall, id: string): string {
  return `${action(call)} — reply /approve ${id} or /deny ${id}`;
}

/** Who answers `/approve` or `/deny`: the sender and every form of it, on the `channel_list` entry it wrote from. */
export interface Approver {
  sender: string;
  aliases: readonly string[];
  /** The `channel_list` entry the answer came from. */
  channel?: string;
}

/**
 * Whether this approver may answer a call: the user whose message started the turn, or an owner of the channel,
 * one its `allow_from` names (`*` opens a channel to everyone and makes no one an owner). In a group anyone else
 * could otherwise approve a call another member's message caused.
 */
export function mayAnswer(config: Config, asker: string | undefined, approver: Approver): boolean {
  if (asker !== undefined && approver.sender === asker) return true;
  const entry = approver.channel === undefined ? undefined : config.channel_list[approver.channel];
  const allowFrom = entry?.settings.allow_from ?? [];
  const owners = allowFrom.filter((entry) => entry.trim() !== '*');
  return owners.length > 0 && senderListed(owners, [approver.sender, ...approver.aliases]);
}
