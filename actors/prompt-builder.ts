import type { ChatMessage } from '../bus/index.js';
import type { BuiltPrompt, TurnHistory } from '../machines/turn.js';
import type { Config } from '../store/config/index.js';
import { skillBody, type SkillInfo } from '../store/skills.js';
import { SPLIT_NOTE } from './split-marker.js';
import type { AgentDoc, WorkspaceFiles } from '../store/workspace.js';

type TurnProfile = NonNullable<Config['agents']['defaults']['turn_profile']>;

export interface PromptRequest {
  agent: string;
  /** AGENT.md as the turn read it: read once per turn, for its tool list and for the prompt. */
  doc: AgentDoc;
  channel: string;
  chat: string;
  text: string;
  now: Date;
  history: TurnHistory;
  /** A skill forced by `/use` for this request. */
  skill?: SkillInfo;
  skills: SkillInfo[];
  tools: string[];
  profile?: TurnProfile;
  /** The agent registry (`{"agents":[…]}`) when the agent can hand tasks to peers. */
  agents?: string;
  /** `split_on_marker`: the model is told how to part its answer into several messages. */
  splitOnMarker?: boolean;
}

const TIME_NOTE = 'The newest user message begins with the current time: [YYYY-MM-DD HH:MM UTC].';

const AGENTS_NOTE =
  "These peer agents can take a task from you: pass one's id as agent_id to spawn (it works in the " +
  'background) or subagent (you wait for its answer). Choose by description; use only the ids listed here.';

/** History kept verbatim in the prompt; older messages live on in the summary. */
export const HISTORY_WINDOW = 40;
/**
 * The window's first message moves on in steps of this many, so the history at the head of the prompt stays the same
 * bytes for several turns and the vendors' prompt caches keep reading it (a window sliding by one turn would change
 * the prefix on every turn). The prompt then holds between `HISTORY_WINDOW` and `HISTORY_WINDOW + HISTORY_STEP - 1`.
 */
export const HISTORY_STEP = 20;

/** Notes for the person editing a prompt file (`<!-- … -->`, as the starter files use them) never reach the model. */
const HUMAN_NOTES = /<!--[\s\S]*?-->/g;

function withoutNotes(text: string): string {
  return text.includes('<!--') ? text.replace(HUMAN_NOTES, '').replace(/\n{3,}/g, '\n\n') : text;
}

/** A file left as its template's headings says nothing: it is not sent (every prompt costs its bytes). */
const saysSomething = (text: string): boolean =>
  text.split('\n').some((line) => line.trim() !== '' && !line.trimStart().startsWith('#'));

function section(title: string, body: string): string | undefined {
  const text = withoutNotes(body).trim();
  return saysSomething(text) ? `## ${title}\n\n${text}` : undefined;
}

/** `A helpful assistant.` after a name reads `Tern, a helpful assistant`; `AI helper` keeps its capitals. */
function asApposition(description: string): string {
  const text = description.trim().replace(/[.!]+$/, '');
  const first = text.split(/\s/, 1)[0]!;
  return /^[A-Z][a-z]*$/.test(first) ? text[0]!.toLowerCase() + text.slice(1) : text;
}

/** The first sentence of every prompt: who the agent is, in one clean sentence, then where it runs. */
export function identitySentence(name: string, description: string | undefined): string {
  const who = description?.trim() ? `You are ${name}, ${asApposition(description)}.` : `You are ${name}.`;
  return (
    `${who} You run as an agent on the user's own machine. Use the tools ` +
    `you have when they help; say plainly when something failed.`
  );
}

function allowedBy(block: TurnProfile['skills'] | undefined, name: string): boolean {
  if (!block || block.mode === 'default') return true;
  if (block.mode === 'off') return false;
  return [...(block.custom?.allow ?? []), ...(block.allow ?? [])].includes(name);
}

/** Which names a turn profile lets through (tools or skills); without a profile, all. */
export function profileAllows(profile: TurnProfile | undefined, block: 'skills' | 'tools', name: string): boolean {
  return !profile?.enabled || allowedBy(profile[block], name);
}

/**
 * The prompt of one request. Everything up to the skills catalog is a stable prefix (the same files give the
 * same bytes, catalogs sorted), so provider-side prompt caches keep hitting; the time and the session summary
 * come after it.
 */
export class PromptBuilder {
  /** The prefix text of the files it was made from: unchanged files are the same cached values, so no rebuild. */
  private prefix: { sources: unknown[]; text: string | undefined } | undefined;
  /** The skills section of the catalog's list and the profile it was made for: the same objects, the same text. */
  private skillsSection:
    | { skills: SkillInfo[]; profile: TurnProfile | undefined; text: string | undefined }
    | undefined;

  /** `inlineMaxChars`: past this many characters MEMORY.md is cut to its head and the model is told to search. */
  constructor(
    private readonly files: WorkspaceFiles,
    private readonly inlineMaxChars: () => number = () => Infinity,
  ) {}

  build(request: PromptRequest): BuiltPrompt {
    const profile = request.profile?.enabled ? request.profile : undefined;
    const withSystem = profile?.system_prompt.mode !== 'off';
    const withHistory = profile?.history.mode !== 'off';
    const parts = [
      withSystem ? this.stablePrefix(request.doc) : undefined,
      withSystem && request.agents
        ? section('Agents you can hand tasks to', `${AGENTS_NOTE}\n\n${request.agents}`)
        : undefined,
      this.skillsOf(request.skills, profile),
      request.skill && profileAllows(profile, 'skills', request.skill.name)
        ? section(`Active skill: ${request.skill.name}`, skillBody(request.skill))
        : undefined,
      withSystem && request.splitOnMarker ? section('Several messages', SPLIT_NOTE) : undefined,
      withSystem ? section('Runtime', this.runtimeContext(request)) : undefined,
      withSystem && withHistory && request.history.summary
        ? section('Summary of the conversation so far', request.history.summary)
        : undefined,
    ];
    return {
      system: joinSections(parts) ?? '',
      messages: messagesOf(
        withHistory ? request.history.messages : [],
        withSystem ? `[${minuteOf(request.now)} UTC] ${request.text}` : request.text,
      ),
      // Without a profile every tool passes: the toolbox's own list, which no one changes.
      tools: profile ? request.tools.filter((t) => profileAllows(profile, 'tools', t)) : request.tools,
    };
  }

  private skillsOf(skills: SkillInfo[], profile: TurnProfile | undefined): string | undefined {
    if (this.skillsSection?.skills === skills && this.skillsSection.profile === profile) return this.skillsSection.text;
    const allowed = skills.filter((s) => profileAllows(profile, 'skills', s.name));
    const text = section('Skills', allowed.map((s) => `- ${s.name}: ${s.description} (${s.path})`).join('\n'));
    this.skillsSection = { skills, profile, text };
    return text;
  }

  /**
   * The time is not in the system prompt but on the newest user message: a system prompt that changed every minute
   * would keep the vendors' prompt caches from reading the history after it on any turn in a new minute.
   */
  private runtimeContext(request: PromptRequest): string {
    return `Agent: ${request.agent}\nChannel: ${request.channel}\nChat: ${request.chat}\n${TIME_NOTE}`;
  }

  private stablePrefix(agentDoc: AgentDoc): string | undefined {
    const limit = this.inlineMaxChars();
    const sources = [
      agentDoc,
      this.files.text('soul'),
      this.files.text('user'),
      this.files.text('identity'),
      this.files.text('memory'),
      limit,
    ] as const;
    if (this.prefix?.sources.every((source, i) => source === sources[i])) return this.prefix.text;
    const [doc, soul, user, identityNotes, fullMemory] = sources;
    const memory = inlineMemory(fullMemory, limit);
    const identity = identitySentence(doc.frontmatter.name?.trim() || 'Tern', doc.frontmatter.description);
    const text = joinSections([
      section('Identity', identity),
      section('Workspace instructions (AGENT.md)', doc.body),
      section('Soul (SOUL.md)', soul),
      section('User (USER.md)', user),
      section('Identity notes (IDENTITY.md)', identityNotes),
      section('Memory (memory/MEMORY.md)', memory),
    ]);
    this.prefix = { sources: [...sources], text };
    return text;
  }
}

/**
 * MEMORY.md as the prompt carries it: whole up to `limit` characters, else its head (cut at a line end) and a note
 * that the rest is found with `memory_search`, so a long memory does not grow every request.
 */
function inlineMemory(memory: string, limit: number): string {
  if (memory.length <= limit) return memory;
  const cut = memory.lastIndexOf('\n', limit);
  const head = memory.slice(0, cut > limit / 2 ? cut : limit).trimEnd();
  return (
    `${head}\n\n` +
    `[MEMORY.md goes on for ${memory.length - head.length} more characters: use memory_search to find what it ` +
    `holds.]`
  );
}

const minuteOf = (now: Date): string => now.toISOString().slice(0, 16).replace('T', ' ');

function joinSections(parts: Array<string | undefined>): string | undefined {
  const present = parts.filter((p): p is string => p !== undefined);
  return present.length > 0 ? present.join('\n\n') : undefined;
}

/**
 * The window of the history (`HISTORY_WINDOW`, starting on a `HISTORY_STEP`), then the request's text, in one new list.
 */
function messagesOf(history: TurnHistory['messages'], text: string): ChatMessage[] {
  const messages: ChatMessage[] = [];
  const first = Math.floor(Math.max(0, history.length - HISTORY_WINDOW) / HISTORY_STEP) * HISTORY_STEP;
  for (let i = first; i < history.length; i++) messages.push(history[i]!);
  messages.push({ role: 'user', content: text });
  return messages;
}
