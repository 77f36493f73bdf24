import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HISTORY_WINDOW, identitySentence, PromptBuilder, type PromptRequest } from '../../actors/prompt-builder.js';
import type { ChatMessage } from '../../bus/index.js';
import type { SkillInfo } from '../../store/skills.js';
import { ensureWorkspace, WorkspaceFiles } from '../../store/workspace.js';

function builder() {
  const root = mkdtempSync(join(tmpdir(), 'tern-'));
  writeFileSync(join(root, 'SOUL.md'), 'Calm.');
  const files = new WorkspaceFiles(root, { watch: false });
  const prompt = new PromptBuilder(files);
  const request = (over: Partial<PromptRequest> = {}): PromptRequest => ({
    agent: 'main',
    doc: files.agent(),
    channel: 'cli',
    chat: 'direct:ann',
    text: 'hello',
    now: new Date('2026-11-22T10:05:59.999Z'),
    history: { messages: [] },
    skills: [],
    tools: ['read_file', 'todo'],
    ...over,
  });
  return { prompt, request, remove: () => rmSync(root, { recursive: true, force: true }) };
}

const skill = (name: string, description: string): SkillInfo => ({ name, description, root: 'builtin', path: `/skills/${name}/SKILL.md` });
const IDENTITY =
  "## Identity\n\nYou are Tern. You run as an agent on the user's own machine. Use the tools you have when they help; say plainly when something failed.";

test('the system prompt is the files, the skills, the runtime and the summary; the messages end with the request', () => {
  const b = builder();
  const history = { summary: 'They met.', messages: [{ role: 'user', content: 'earlier' } as ChatMessage] };
  const built = b.prompt.build(b.request({ history, skills: [skill('weather', 'Forecasts')] }));
  assert.is(
    built.system,
    [
      IDENTITY,
      '## Soul (SOUL.md)\n\nCalm.',
      '## Skills\n\n- weather: Forecasts (/skills/weather/SKILL.md)',
      '## Runtime\n\nTime: 2026-11-22 10:05 UTC\nAgent: main\nChannel: cli\nChat: direct:ann',
      '## Summary of the conversation so far\n\nThey met.',
    ].join('\n\n'),
  );
  assert.equal(built.messages, [
    { role: 'user', content: 'earlier' },
    { role: 'user', content: 'hello' },
  ]);
  assert.equal(built.tools, ['read_file', 'todo']);
  b.remove();
});

test('the identity is one clean sentence from the name and description, whatever their punctuation', () => {
  const rest = "You run as an agent on the user's own machine. Use the tools you have when they help; say plainly when something failed.";
  assert.is(identitySentence('Tern', 'A helpful assistant that works in this workspace.'), `You are Tern, a helpful assistant that works in this workspace. ${rest}`);
  assert.is(identitySentence('Tern', 'a helpful assistant that works in this workspace'), `You are Tern, a helpful assistant that works in this workspace. ${rest}`);
  assert.is(identitySentence('Ada', 'AI pair programmer!'), `You are Ada, AI pair programmer. ${rest}`);
  assert.is(identitySentence('Ada', '  '), `You are Ada. ${rest}`);
});

test('the starter workspace gives a prompt without human notes, template headings or a broken identity', () => {
  const root = mkdtempSync(join(tmpdir(), 'tern-'));
  ensureWorkspace(root);
  const files = new WorkspaceFiles(root, { watch: false });
  const built = new PromptBuilder(files).build({
    agent: 'main', doc: files.agent(), channel: 'cli', chat: 'direct:ann', text: 'hi', now: new Date('2026-11-22T10:05:00Z'), history: { messages: [] }, skills: [], tools: [],
  });
  assert.ok(built.system.startsWith("## Identity\n\nYou are Tern, a helpful assistant that works in this workspace. You run as an agent on the user's own machine."), built.system.slice(0, 200));
  assert.equal(built.system.match(/^## .*$/gm), ['## Identity', '## Workspace instructions (AGENT.md)', '## Soul (SOUL.md)', '## Identity notes (IDENTITY.md)', '## Runtime']);
  for (const note of ['<!--', '-->', 'Edit this file', 'frontmatter above', 'Write here what', 'Long-term facts']) assert.not.ok(built.system.includes(note), note);
  assert.ok(built.system.includes('- Answer briefly; say what you did and what you could not do.'));
  files.close();
  rmSync(root, { recursive: true, force: true });
});

test('each prompt names the minute of its own request', () => {
  const b = builder();
  const runtime = (now: Date, chat: string) => b.prompt.build(b.request({ now, chat })).system.split('## Runtime\n\n')[1];
  assert.is(runtime(new Date('2026-11-22T10:05:00.000Z'), 'direct:ann'), 'Time: 2026-11-22 10:05 UTC\nAgent: main\nChannel: cli\nChat: direct:ann');
  assert.is(runtime(new Date('2026-11-22T10:05:59.999Z'), 'direct:bob'), 'Time: 2026-11-22 10:05 UTC\nAgent: main\nChannel: cli\nChat: direct:bob');
  assert.is(runtime(new Date('2026-11-22T10:06:00.000Z'), 'direct:bob'), 'Time: 2026-11-22 10:06 UTC\nAgent: main\nChannel: cli\nChat: direct:bob');
  assert.is(runtime(new Date('2025-01-01T00:00:00.000Z'), 'direct:bob'), 'Time: 2025-01-01 00:00 UTC\nAgent: main\nChannel: cli\nChat: direct:bob');
  b.remove();
});

test('the skills section follows the catalog list and the turn profile of each request', () => {
  const b = builder();
  const skillsOf = (over: Partial<PromptRequest>) => b.prompt.build(b.request(over)).system.match(/## Skills\n\n([^#]*)\n\n/)?.[1];
  const first = [skill('atlas', 'Maps'), skill('weather', 'Forecasts')];
  assert.is(skillsOf({ skills: first }), '- atlas: Maps (/skills/atlas/SKILL.md)\n- weather: Forecasts (/skills/weather/SKILL.md)');
  assert.is(skillsOf({ skills: [skill('notes', 'Keeps notes')] }), '- notes: Keeps notes (/skills/notes/SKILL.md)');
  const profile = {
    enabled: true,
    history: { mode: 'default' as const },
    system_prompt: { mode: 'default' as const },
    skills: { mode: 'custom' as const, custom: { allow: ['weather'] } },
    tools: { mode: 'custom' as const, allow: ['todo'] },
  };
  const built = b.prompt.build(b.request({ skills: first, profile }));
  assert.match(built.system, '## Skills\n\n- weather: Forecasts (/skills/weather/SKILL.md)\n\n## Runtime');
  assert.equal(built.tools, ['todo']);
  assert.is(skillsOf({ skills: first }), '- atlas: Maps (/skills/atlas/SKILL.md)\n- weather: Forecasts (/skills/weather/SKILL.md)');
  b.remove();
});

test(`the messages are the last ${HISTORY_WINDOW} of the history, then the request`, () => {
  const b = builder();
  const messages = Array.from({ length: HISTORY_WINDOW + 5 }, (_, i) => ({ role: 'user', content: `m${i}` }) as ChatMessage);
  const built = b.prompt.build(b.request({ history: { messages } }));
  assert.equal(
    built.messages.map((m) => m.content),
    [...Array.from({ length: HISTORY_WINDOW }, (_, i) => `m${i + 5}`), 'hello'],
  );
  b.remove();
});

test.run();
