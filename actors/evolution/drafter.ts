import type { ChatResponse } from '../../bus/index.js';
import type { RouterRequest } from '../../adapters/providers/router.js';
import { SkillFileError, strictHeader } from '../../store/skills/skill-file.js';
import type { Cluster } from './projection.js';

/** At most this many records go into the request: the newest. */
const RECORDS_SHOWN = 20;
const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

const INSTRUCTIONS = [
  'You write skills for an AI agent. A skill is one SKILL.md file: YAML frontmatter between --- lines with `name`',
  '(lowercase words joined by hyphens) and `description` (one sentence saying when to use the skill), then Markdown',
  'instructions the agent follows step by step, naming the tools it should call.',
  'Below are tasks of one kind the agent has done, with the tools it used and how each ended. Write one skill that',
  'captures how the successful ones were done, general enough to help with the next task of this kind, and that avoids',
  'what made the failed ones fail. Answer with the content of SKILL.md only.',
].join('\n');

export class DraftError extends Error {
  readonly code = 'draft_invalid';
  constructor(message: string) {
    super(message);
    this.name = 'DraftError';
  }
}

export interface DraftedSkill {
  name: string;
  description: string;
  content: string;
}

export function draftRequest(cluster: Cluster): RouterRequest {
  const shown = cluster.records.slice(-RECORDS_SHOWN);
  const succeeded = cluster.records.filter((r) => r.outcome === 'success').length;
  const lines = shown.map((r, i) => {
    const ending = r.outcome === 'success' ? 'succeeded' : `failed (${r.reason ?? 'no reason given'})`;
    return `${i + 1}. ${r.task}\n   tools: ${r.tools.join(', ') || 'none'}; ${ending}`;
  });
  const newest = shown.length < cluster.records.length ? `; the newest ${shown.length}` : '';
  const kind = `tasks of the kind "${cluster.shape}"`;
  const head = `${cluster.records.length} ${kind}, ${succeeded} of them succeeded${newest}:`;
  return {
    system: INSTRUCTIONS,
    messages: [{ role: 'user', content: `${head}\n\n${lines.join('\n')}` }],
    tools: [],
    stream: false,
  };
}

/** A lowercase, hyphenated folder name from whatever the model called the skill. */
function folderName(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
}

/**
 * The model's answer as a skill: a Markdown fence around it is taken off, the frontmatter must have `name` and
 * `description`, and a name that cannot be a folder is rewritten as one (lowercase, hyphens).
 */
export function parseDraft(answer: ChatResponse): DraftedSkill {
  let text = answer.text.trim();
  const fenced = /^```[a-zA-Z]*\r?\n([\s\S]*?)\r?\n```$/.exec(text);
  if (fenced) text = fenced[1]!.trim();
  let header;
  try {
    header = strictHeader(`${text}\n`);
  } catch (error) {
    if (error instanceof SkillFileError) throw new DraftError(`the model's draft is not a skill: ${error.message}`);
    throw error;
  }
  const name = NAME.test(header.name) ? header.name : folderName(header.name);
  if (!name) throw new DraftError(`the model named the skill "${header.name}", which has no letters or digits`);
  const content = name === header.name ? `${text}\n` : `${text.replace(/^name:.*$/m, `name: ${name}`)}\n`;
  return { name, description: header.description, content };
}
