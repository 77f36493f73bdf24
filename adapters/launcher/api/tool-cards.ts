import type { StatusReply } from '../../../bus/api-shapes.js';
import type { Config } from '../../../store/config/index.js';

type Tool = { name: string; description: string };

/** Groups people look tools up by, in the order the page shows them; a name's first matching pattern wins. */
const GROUPS: Array<[string, RegExp]> = [
  ['Files', /^(read_file|write_file|edit_file|append_file|list_dir|search_files|send_file)$/],
  ['Commands', /^(exec|shell|process)/],
  ['Web', /^web_|^http/],
  ['Memory', /^memory_/],
  ['Messages', /^(message|ask_user|reply)/],
  ['Subagents', /^(spawn|spawn_status|subagent)$/],
  ['Skills', /skill/],
  ['Scheduling', /^(cron|todo)/],
  ['MCP', /^mcp_/],
];

function groupOf(name: string): string {
  return GROUPS.find(([, pattern]) => pattern.test(name))?.[0] ?? 'Other';
}

/** `max read file size: 65536`: a tool's own settings, with words, other than whether it is on. */
function limitsOf(config: Config, name: string): string[] {
  const block = (config.tools as Record<string, unknown>)[name];
  if (!block || typeof block !== 'object') return [];
  return (
    Object.entries(block as Record<string, unknown>)
      // Approval asked for is worth a chip; not asked for, it is the usual case and would be noise on every tool.
      .filter(([key, value]) => key !== 'enabled' && !(key === 'require_approval' && value === false))
      .filter(([, value]) => ['number', 'string', 'boolean'].includes(typeof value))
      .map(([key, value]) => `${key.replaceAll('_', ' ')}: ${value === true ? 'yes' : value === false ? 'no' : value}`)
  );
}

/** The tools the running gateway offers, grouped, each with its limits from the config. */
export function toolCards(tools: Tool[], config: Config): StatusReply['tools'] {
  const groups = new Map<string, StatusReply['tools'][number]['tools']>();
  for (const tool of [...tools].sort((a, b) => a.name.localeCompare(b.name))) {
    const group = groupOf(tool.name);
    groups.set(group, [
      ...(groups.get(group) ?? []),
      { name: tool.name, description: tool.description, limits: limitsOf(config, tool.name) },
    ]);
  }
  const order = [...GROUPS.map(([group]) => group), 'Other'];
  return order.flatMap((group) => {
    const found = groups.get(group);
    return found ? [{ group, tools: found }] : [];
  });
}
