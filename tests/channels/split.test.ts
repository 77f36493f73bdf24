import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { splitMessage } from '../../adapters/channels/split.js';

const fences = (part: string): number => (part.match(/^\s*(```|~~~)/gm) ?? []).length;

test('a reply within the limit stays whole', () => {
  assert.equal(splitMessage('short reply', 100), ['short reply']);
  assert.equal(splitMessage('x'.repeat(100), 100), ['x'.repeat(100)]);
});

test('long prose is cut at line breaks into parts within the limit', () => {
  const lines = Array.from({ length: 30 }, (_, i) => `paragraph ${i} ${'w'.repeat(20)}`);
  const parts = splitMessage(lines.join('\n'), 200);
  assert.ok(parts.length > 1);
  parts.forEach((p) => assert.ok(p.length <= 200, `${p.length} > 200`));
  assert.equal(parts.join('\n').split('\n'), lines);
});

test('a code block cut in two is closed and reopened with its language', () => {
  const code = Array.from({ length: 40 }, (_, i) => `print(${i})`);
  const text = ['Intro', '```python', ...code, '```', 'Outro'].join('\n');
  const parts = splitMessage(text, 150);
  assert.ok(parts.length > 2);
  for (const [i, part] of parts.entries()) {
    assert.ok(part.length <= 150, `part ${i} has ${part.length}`);
    assert.is(fences(part) % 2, 0, `part ${i} has unbalanced fences:\n${part}`);
    if (i > 0 && part.includes('print(')) assert.ok(part.startsWith('```python'), `part ${i} does not reopen the block`);
  }
  const body = parts.join('\n').split('\n').filter((l) => l.startsWith('print('));
  assert.equal(body, code);
});

test('tilde fences are closed with tildes', () => {
  const text = ['~~~', ...Array.from({ length: 30 }, (_, i) => `row ${i}`), '~~~'].join('\n');
  const parts = splitMessage(text, 100);
  assert.ok(parts.length > 1);
  assert.ok(parts[0]!.endsWith('\n~~~'));
  assert.ok(parts[1]!.startsWith('~~~'));
});

test('a single line longer than the limit is cut hard', () => {
  const parts = splitMessage('a'.repeat(250), 100);
  parts.forEach((p) => assert.ok(p.length <= 100));
  assert.is(parts.join(''), 'a'.repeat(250));
});

test.run();
