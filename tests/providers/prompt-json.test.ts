import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { promptJsonParts } from '../../adapters/providers/prompt-json.js';

const prefix = `## Identity\n\nYou are "Tern" \\ a tab\there.\n${'Files and skills. '.repeat(80)}`;
const pair = '\u{1F600}';

// Each case is a sequence of prompts given in order; every literal must equal JSON.stringify's. A case's prompts
// start with its own name, so what an earlier case taught `promptJsonParts` never applies.
const CASES: Array<[string, string[]]> = [
  ['a short prompt', ['hello "you"']],
  ['the same prompt twice', [`${prefix}Time: 10:00`, `${prefix}Time: 10:00`]],
  ['prompts sharing a long prefix, tails differing', [`${prefix}Chat: a`, `${prefix}Chat: b\n"quoted"`, `${prefix}Chat: c\u2028`]],
  ['prompts sharing a surrogate pair after the prefix', [`${prefix}${pair}one`, `${prefix}${pair}two`, `${prefix}${pair}three`]],
  ['prompts whose shared part ends between the halves of a pair', [`${prefix}\u{1F600}a`, `${prefix}\u{1F601}b`, `${prefix}\u{1F602}c`]],
  ['a prompt that shares nothing after a stable prefix was learned', [`${prefix}x`, `${prefix}y`, 'other agent', `${prefix}z`]],
  ['a prompt shorter than the learned prefix', [`${prefix}x`, `${prefix}y`, prefix.slice(0, 100)]],
  ['a changed file in the middle of the prefix', [`${prefix}x`, `${prefix}y`, `${prefix.slice(0, 500)}EDIT${prefix.slice(500)}x`]],
  ['lone surrogates and control characters', [`${prefix}\ud800 \u0001`, `${prefix}\udc00 \u001f`]],
];

for (const [name, prompts] of CASES) {
  test(`promptJsonParts joined equals JSON.stringify: ${name}`, () => {
    for (const prompt of prompts.map((p) => `${name}: ${p}`)) assert.is(promptJsonParts(prompt).join(''), JSON.stringify(prompt));
  });
}

test.run();
