import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  HISTORY_STEP,
  HISTORY_WINDOW,
  identitySentence,
  PromptBuilder,
  type PromptRequest,
} from '../../actors/prompt-builder.js';
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

const skill = (name: string, description: string): SkillInfo => ({
  name,
  description,
  root: 'builtin',
  path: `/skills/${name}/SKILL.md`,
});
const TIME_NOTE = 'The newest user message begins with the current time: [YYYY-MM-DD HH:MM UTC].';
const IDENTITY =
  '## Identity\n\n' +
  "You are Tern. You run as an agent on the user's own machine. Use the tools you have when they help; " +
  'say plainly when something failed.';

test(
  'the system prompt is the files, the skills, the runtime and the summary; ' + 'the messages end with the request',
  () => {
    const b = builder();
    const history = { summary: 'They met.', messages: [{ role: 'user', content: 'earlier' } as ChatMessage] };
    const built = b.prompt.build(b.request({ history, skills: [skill('weather', 'Forecasts')] }));
    assert.is(
      built.system,
      [
        IDENTITY,
        '## Soul (SOUL.md)\n\nCalm.',
        '## Skills\n\n- weather: Forecasts (/skills/weather/SKILL.md)',
        `## Runtime\n\nAgent: main\nChannel: cli\nChat: direct:ann\n${TIME_NOTE}`,
        '## Summary of the conversation so far\n\nThey met.',
      ].join('\n\n'),
    );
    assert.equal(built.messages, [
      { role: 'user', content: 'earlier' },
      { role: 'user', content: '[2026-11-22 10:05 UTC] hello' },
    ]);
    assert.equal(built.tools, ['read_file', 'todo']);
    b.remove();
  },
);

test('the identity is one clean sentence from the name and description, whatever their punctuation', () => {
  const rest =
    "You run as an agent on the user's own machine. Use the tools you have when they help; " +
    'say plainly when something failed.';
  assert.is(
    identitySentence('Tern', 'A helpful assistant that works in this workspace.'),
    `You are Tern, a helpful assistant that works in this workspace. ${rest}`,
  );
  assert.is(
    identitySentence('Tern', 'a helpful assistant that works in this workspace'),
    `You are Tern, a helpful assistant that works in this workspace. ${rest}`,
  );
  assert.is(identitySentence('Ada', 'AI pair programmer!'), `You are Ada, AI pair programmer. ${rest}`);
  assert.is(identitySentence('Ada', '  '), `You are Ada. ${rest}`);
});

test('the starter workspace gives a prompt without human notes, template headings or a broken identity', () => {
  const root = mkdtempSync(join(tmpdir(), 'tern-'));
  ensureWorkspace(root);
  const files = new WorkspaceFiles(root, { watch: false });
  const built = new PromptBuilder(files).build({
    agent: 'main',
    doc: files.agent(),
    channel: 'cli',
    chat: 'direct:ann',
    text: 'hi',
    now: new Date('2026-11-22T10:05:00Z'),
    history: { messages: [] },
    skills: [],
    tools: [],
  });
  assert.ok(
    built.system.startsWith(
      '## Identity\n\n' +
        'You are Tern, a helpful assistant that works in this workspace. You ' +
        "run as an agent on the user's own machine.",
    ),
    built.system.slice(0, 200),
  );
  assert.equal(built.system.match(/^## .*$/gm), [
    '## Identity',
    '## Workspace instructions (AGENT.md)',
    '## Soul (SOUL.md)',
    '## Identity notes (IDENTITY.md)',
    '## Runtime',
  ]);
  for (const note of ['<!--', '-->', 'Edit this file', 'frontmatter above', 'Write here what', 'Long-term facts'])
    assert.not.ok(built.system.includes(note), note);
  assert.ok(built.system.includes('- Answer briefly; say what you did and what you could not do.'));
  files.close();
  rmSync(root, { recursive: true, force: true });
});

test(
  'the newest message names the minute of its own request; ' + 'the system prompt stays the same bytes across minutes',
  () => {
    const b = builder();
    const at = (now: Date, chat = 'direct:ann') =>
      b.prompt.build(b.request({ now, chat, history: { messages: [{ role: 'user', content: 'earlier' }] } }));
    const first = at(new Date('2026-11-22T10:05:00.000Z'));
    assert.equal(
      first.messages.map((m) => m.content),
      ['earlier', '[2026-11-22 10:05 UTC] hello'],
    );
    assert.is(at(new Date('2026-11-22T10:05:59.999Z')).messages.at(-1)?.content, '[2026-11-22 10:05 UTC] hello');
    assert.is(at(new Date('2025-01-01T00:00:00.000Z')).messages.at(-1)?.content, '[2025-01-01 00:00 UTC] hello');
    const later = at(new Date('2026-11-22T13:41:00.000Z'));
    assert.is(later.messages.at(-1)?.content, '[2026-11-22 13:41 UTC] hello');
    assert.is(later.system, first.system);
    assert.is(
      at(new Date('2026-11-22T13:41:00.000Z'), 'direct:bob').system.split('## Runtime\n\n')[1],
      `Agent: main\nChannel: cli\nChat: direct:bob\n${TIME_NOTE}`,
    );
    b.remove();
  },
);

test('without a system prompt (turn profile off) the message is as the user wrote it', () => {
  const b = builder();
  const off = { mode: 'off' as const };
  const profile = {
    enabled: true,
    history: { mode: 'default' as const },
    system_prompt: off,
    skills: { mode: 'default' as const },
    tools: { mode: 'default' as const },
  };
  const built = b.prompt.build(b.request({ profile }));
  assert.equal([built.system, built.messages], ['', [{ role: 'user', content: 'hello' }]]);
  b.remove();
});

test('the skills section follows the catalog list and the turn profile of each request', () => {
  const b = builder();
  const skillsOf = (over: Partial<PromptRequest>) =>
    b.prompt.build(b.request(over)).system.match(/## Skills\n\n([^#]*)\n\n/)?.[1];
  const first = [skill('atlas', 'Maps'), skill('weather', 'Forecasts')];
  assert.is(
    skillsOf({ skills: first }),
    '- atlas: Maps (/skills/atlas/SKILL.md)\n- weather: Forecasts (/skills/weather/SKILL.md)',
  );
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
  assert.is(
    skillsOf({ skills: first }),
    '- atlas: Maps (/skills/atlas/SKILL.md)\n- weather: Forecasts (/skills/weather/SKILL.md)',
  );
  b.remove();
});

test(
  `the history window keeps its first message for ${HISTORY_STEP} messages at a time, ` +
    `so the prompt's head repeats from turn to turn`,
  () => {
    const b = builder();
    const window = (length: number) => {
      const messages = Array.from({ length }, (_, i) => ({ role: 'user', content: `m${i}` }) as ChatMessage);
      const contents = b.prompt.build(b.request({ history: { messages } })).messages.map((m) => m.content);
      return [contents[0], contents.length - 1];
    };
    assert.equal(window(HISTORY_WINDOW), ['m0', HISTORY_WINDOW]);
    assert.equal(window(HISTORY_WINDOW + 5), ['m0', HISTORY_WINDOW + 5]);
    assert.equal(window(HISTORY_WINDOW + HISTORY_STEP - 1), ['m0', HISTORY_WINDOW + HISTORY_STEP - 1]);
    assert.equal(window(HISTORY_WINDOW + HISTORY_STEP), [`m${HISTORY_STEP}`, HISTORY_WINDOW]);
    assert.equal(window(HISTORY_WINDOW + HISTORY_STEP + 7), [`m${HISTORY_STEP}`, HISTORY_WINDOW + 7]);
    b.remove();
  },
);

test.run();
