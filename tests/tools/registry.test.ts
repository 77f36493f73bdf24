import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as z from 'zod';
import { DEFAULT_FILTER } from '../../adapters/tools/options.js';
import { ToolRegistry } from '../../adapters/tools/registry.js';
import { ok, ToolError, type Tool } from '../../adapters/tools/tool.js';
import { contextFor, toolsFixture } from '../support/tools-fixture.js';

const echo: Tool<{ text: string; times?: number }> = {
  name: 'echo',
  description: 'Echo text',
  parameters: z.object({ text: z.string().describe('What to say'), times: z.number().int().min(1).optional() }),
  execute: async ({ text, times = 1 }) => {
    if (text === 'refuse') throw new ToolError('nope', 'refused on purpose');
    if (text === 'crash') throw new Error('disk on fire');
    return ok(text.repeat(times));
  },
};

function registry(filter: Partial<typeof DEFAULT_FILTER>, workspace: string): ToolRegistry {
  return new ToolRegistry({ ...DEFAULT_FILTER, ...filter }, workspace).register(echo);
}

test('execute turns bad arguments, unknown tools and thrown errors into results the model reads', async () => {
  const f = toolsFixture();
  const tools = registry({}, f.workspace);
  const context = contextFor(f.workspace);
  const cases: [string, unknown, { ok: boolean; content: string }][] = [
    ['echo', { text: 'hello' }, { ok: true, content: 'hello' }],
    [
      'echo',
      {},
      { ok: false, content: 'invalid arguments for echo: text: Invalid input: expected string, received undefined' },
    ],
    [
      'echo',
      { text: 'a', times: 0 },
      { ok: false, content: 'invalid arguments for echo: times: Too small: expected number to be >=1' },
    ],
    [
      'echo',
      'not an object',
      {
        ok: false,
        content: 'invalid arguments for echo: (arguments): Invalid input: expected object, received string',
      },
    ],
    ['echo', { text: 'refuse' }, { ok: false, content: 'refused on purpose' }],
    ['echo', { text: 'crash' }, { ok: false, content: 'echo failed: disk on fire' }],
    ['shout', {}, { ok: false, content: 'unknown tool "shout"; available: echo' }],
  ];
  for (const [name, args, expected] of cases)
    assert.equal(await tools.execute(name, args, context), expected, JSON.stringify(args));
  f.close();
});

test('specs expose the zod parameters as JSON schema with descriptions', () => {
  const tools = registry({}, '/tmp');
  assert.equal(tools.specs(), [
    {
      name: 'echo',
      description: 'Echo text',
      parameters: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: {
          text: { type: 'string', description: 'What to say' },
          times: { type: 'integer', minimum: 1, maximum: 9007199254740991 },
        },
        required: ['text'],
      },
    },
  ]);
});

test(
  'the output filter masks known secrets as everywhere (sk-a…f9) ' +
    'and common key shapes as [REDACTED], only in results long enough',
  async () => {
    const f = toolsFixture();
    const tools = registry({ secrets: ['hunter2-very-secret'], minLength: 8 }, f.workspace);
    const context = contextFor(f.workspace);
    const cases: [string, string][] = [
      ['pw=hunter2-very-secret.', 'pw=hunt…et.'],
      ['key sk-abcdefghijklmnopqrstuvwxyz012345 end', 'key [REDACTED] end'],
      ['gh ghp_abcdefghijklmnopqrstuvwxyz0123456789 x', 'gh [REDACTED] x'],
      ['aws AKIAABCDEFGHIJKLMNOP x', 'aws [REDACTED] x'],
      ['Authorization: Bearer abcdefghijklmnopqrstuvwxyz', 'Authorization: Bearer [REDACTED]'],
      ['-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----', '[REDACTED]'],
      ['short', 'short'],
      ['nothing secret here', 'nothing secret here'],
    ];
    for (const [text, expected] of cases)
      assert.equal(await tools.execute('echo', { text }, context), { ok: true, content: expected });
    const off = registry({ enabled: false, secrets: ['hunter2-very-secret'] }, f.workspace);
    assert.equal(await off.execute('echo', { text: 'pw=hunter2-very-secret' }, context), {
      ok: true,
      content: 'pw=hunter2-very-secret',
    });
    f.close();
  },
);

test('a result over max_inline_text_chars Unicode characters becomes a workspace artifact', async () => {
  const f = toolsFixture();
  const tools = registry({ maxInlineTextChars: 5 }, f.workspace);
  const context = contextFor(f.workspace);
  assert.equal(await tools.execute('echo', { text: 'ééééé' }, context), { ok: true, content: 'ééééé' });
  const result = await tools.execute('echo', { text: 'é', times: 6 }, context);
  const path = /\[file:(artifacts\/[0-9a-f-]+\.txt)\]$/.exec(result.content)?.[1];
  assert.ok(path, result.content);
  assert.is(
    result.content,
    'The result was 6 characters, too long to show inline; ' +
      `it was saved to ${path}. Read it with read_file.\n[file:${path}]`,
  );
  assert.is(readFileSync(join(f.workspace, path!), 'utf8'), 'éééééé');
  f.close();
});
test.run();
