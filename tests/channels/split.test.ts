import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DISCORD_MAX_LENGTH } from '../../adapters/channels/discord-message.js';
import { SLACK_MAX_LENGTH } from '../../adapters/channels/slack-message.js';
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
    if (i > 0 && part.includes('print('))
      assert.ok(part.startsWith('```python'), `part ${i} does not reopen the block`);
  }
  const body = parts
    .join('\n')
    .split('\n')
    .filter((l) => l.startsWith('print('));
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

/**
 * One paragraph of `count` numbered sentences of 66 characters: 92 make a reply as long as the one reported (6,152).
 */
const prose = (count: number): string =>
  Array.from(
    { length: count },
    (_, i) => `Sentence ${String(i).padStart(3, '0')} of the long streamed answer goes on for a while here.`,
  ).join(' ');

const words = (parts: string[]): string[] => parts.join(' ').split(/\s+/);

const LIMITS = [
  ['Telegram', 4096],
  ['Discord', DISCORD_MAX_LENGTH],
  ['Slack', SLACK_MAX_LENGTH],
] as const;

for (const [channel, limit] of LIMITS) {
  test(`${channel} (${limit}): one long paragraph is cut after whole sentences, never inside a word`, () => {
    const text = prose(92);
    assert.is(text.length, 6_163);
    const parts = splitMessage(text, limit);
    assert.equal(
      parts.map((p) => p.length <= limit),
      parts.map(() => true),
    );
    for (const part of parts.slice(0, -1))
      assert.ok(part.endsWith('goes on for a while here.'), `a part ends mid-sentence: …${part.slice(-30)}`);
    assert.equal(words(parts), text.split(' '));
    // As many whole sentences as fit: 61 for Telegram, 29 for Discord, 59 for Slack.
    assert.is(parts[0]!.length, 67 * Math.floor((limit + 1) / 67) - 1);
  });

  test(`${channel} (${limit}): paragraphs stay whole when they fit`, () => {
    // Two fit in a part, three do not.
    const paragraph = (i: number) =>
      `Paragraph ${i}. ${'Words and more words. '.repeat(Math.floor((limit * 0.4) / 22))}`.trim();
    const paragraphs = Array.from({ length: 7 }, (_, i) => paragraph(i));
    const parts = splitMessage(paragraphs.join('\n\n'), limit);
    assert.equal(
      parts.flatMap((p) => p.split('\n\n')),
      paragraphs,
    );
    assert.equal(
      parts.map((p) => p.split('\n\n').length),
      [2, 2, 2, 1],
    );
  });

  test(`${channel} (${limit}): words without sentence ends are cut at a blank`, () => {
    const text = Array.from(
      { length: Math.ceil((limit * 1.5) / 12) },
      (_, i) => `word${String(i).padStart(6, '0')}`,
    ).join(' ');
    const parts = splitMessage(text, limit);
    assert.is(parts.length, 2);
    assert.ok(parts[0]!.length <= limit && parts[0]!.length > limit - 12);
    assert.equal(words(parts), text.split(' '));
  });

  test(`${channel} (${limit}): bold text, links and code spans across the limit are not cut`, () => {
    // Ends 10 to 19 characters before the limit: each entity (26 or more) reaches across it.
    const before = 'aaaaaaaaa '.repeat(Math.floor((limit - 10) / 10));
    for (const entity of [
      '**a bold phrase of several words**',
      '[the project page](https://example.com/a)',
      '`npm run build -- --watch`',
    ]) {
      const parts = splitMessage(`${before}${entity} and after.`, limit);
      assert.is(parts.length, 2, entity);
      assert.ok(parts[1]!.startsWith(entity), `${entity} was cut: ${parts[1]!.slice(0, 40)}`);
    }
  });

  test(`${channel} (${limit}): a code block that fits in a part moves whole to the next part`, () => {
    const block = ['```ts', ...Array.from({ length: 20 }, (_, i) => `const v${i} = ${i};`), '```'].join('\n');
    const before = 'A sentence before the code. '.repeat(Math.floor((limit - 100) / 28));
    const parts = splitMessage(`${before}\n${block}\nAfter the code.`, limit);
    assert.is(parts.length, 2);
    assert.ok(parts[1]!.startsWith(block), parts[1]!.slice(0, 40));
    assert.is(fences(parts[0]!), 0);
  });
}

test.run();
