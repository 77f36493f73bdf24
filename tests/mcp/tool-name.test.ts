import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mcpToolNames } from '../../adapters/mcp/tool-name.js';

const names = (origins: Array<[string, string]>, taken?: Set<string>) => [
  ...mcpToolNames(
    origins.map(([server, tool]) => ({ server, tool })),
    taken,
  ).keys(),
];

test('plain names are mcp_<server>_<tool>', () => {
  assert.equal(
    names([
      ['github', 'create_issue'],
      ['everything', 'get-sum'],
    ]),
    ['mcp_github_create_issue', 'mcp_everything_get-sum'],
  );
});

test('characters outside [A-Za-z0-9_-] become underscores', () => {
  assert.equal(names([['my server', 'files/read.v2']]), ['mcp_my_server_files_read_v2']);
});

test('names longer than 64 characters are cut and end in a stable hash', () => {
  const [name] = names([['s', 'x'.repeat(80)]]);
  assert.is(name!.length, 64);
  assert.match(name!, /^mcp_s_x+_[0-9a-f]{8}$/);
  assert.equal(names([['s', 'x'.repeat(80)]]), [name]);
});

test('names that would collide stay distinct: the later one gets a hash', () => {
  const [first, second] = names([
    ['a', 'b.c'],
    ['a', 'b_c'],
  ]);
  assert.is(first, 'mcp_a_b_c');
  assert.match(second!, /^mcp_a_b_c_[0-9a-f]{8}$/);
});

test('a name already taken by another tool is not reused', () => {
  const [name] = names([['a', 'b']], new Set(['mcp_a_b']));
  assert.match(name!, /^mcp_a_b_[0-9a-f]{8}$/);
});

test('every name fits the 64-character limit and the allowed characters', () => {
  const all = names(
    Array.from({ length: 50 }, (_, i) => ['ä'.repeat(i), `tool ${'y'.repeat(i * 2)}`] as [string, string]),
  );
  assert.is(new Set(all).size, 50);
  for (const name of all) assert.ok(/^[A-Za-z0-9_-]{1,64}$/.test(name), name);
});

test.run();
