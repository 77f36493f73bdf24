import * as z from 'zod';
import { parseFrontmatter } from '../frontmatter-yaml.js';
import { WorkspaceError } from './errors.js';

const names = () =>
  z.array(z.string({ error: 'is not a string (allowed: a name)' }), {
    error: 'is not a list (allowed: a list of names)',
  });
const words = () => z.string({ error: 'is not a string (allowed: text)' });

/** `AGENT.md` frontmatter. Other keys may be present (other tools write them); they are kept, never injected. */
export const agentFrontmatterSchema = z.looseObject({
  name: words().optional(),
  description: words().optional(),
  /** When present, only these runtime tools are registered for the agent. */
  tools: names().optional(),
  skills: names().optional(),
  mcpServers: names().optional(),
  model: words().optional(),
});

export type AgentFrontmatter = z.output<typeof agentFrontmatterSchema>;

export interface AgentDoc {
  frontmatter: AgentFrontmatter;
  /** The text after the frontmatter: the behaviour guide itself. */
  body: string;
}

const FENCE = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/;

function problemsOf(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.map(String).join('.') || '(frontmatter)'}: ${issue.message}`);
}

/** Splits and validates `AGENT.md`; a file without frontmatter is all body. */
export function parseAgentDoc(text: string, file: string): AgentDoc {
  const fence = FENCE.exec(text);
  if (!fence) return { frontmatter: {}, body: text };
  let data: unknown;
  try {
    data = parseFrontmatter(fence[1]!) ?? {};
  } catch (error) {
    throw new WorkspaceError('agent_frontmatter_invalid', file, [
      `(frontmatter): not valid YAML (${(error as Error).message.split('\n')[0]})`,
    ]);
  }
  const result = agentFrontmatterSchema.safeParse(data, {
    error: () => 'is not a mapping (allowed: name, description, tools, skills, mcpServers, model)',
  });
  if (!result.success) throw new WorkspaceError('agent_frontmatter_invalid', file, problemsOf(result.error));
  return { frontmatter: result.data, body: text.slice(fence[0].length) };
}
