import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { completionSchema, isCompletion } from '../../adapters/providers/chat-completions-wire.js';

const call = { id: 'c1', type: 'function', function: { name: 'read', arguments: '{}' } };
const message = { role: 'assistant', content: 'hi', tool_calls: [call] };
const usage = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 };
const answer = { id: 'x', choices: [{ index: 0, message, finish_reason: 'stop' }], usage };
const withMessage = (change: Record<string, unknown>) => ({ ...answer, choices: [{ ...answer.choices[0], message: { ...message, ...change } }] });
const withCall = (change: unknown) => withMessage({ tool_calls: [change] });

const answers: Array<[string, unknown]> = [
  ['a text answer with a tool call and usage', answer],
  ['nulls where the fields may be null', { choices: [{ message: { content: null, tool_calls: null, reasoning: null }, finish_reason: null }], usage: null }],
  ['no usage and a bare message', { choices: [{ message: {} }] }],
  ['reasoning beside the content', withMessage({ reasoning_content: 'thought', reasoning: 'also' })],
  ['a tool call with only an index', withCall({ index: 0 })],
  ['a second choice in the usual shape', { ...answer, choices: [answer.choices[0], answer.choices[0]] }],
  ['no choices', { ...answer, choices: [] }],
  ['choices that are not a list', { ...answer, choices: { 0: answer.choices[0] } }],
  ['a choice without a message', { choices: [{ finish_reason: 'stop' }] }],
  ['a message that is a list', { choices: [{ message: [] }] }],
  ['content that is a number', withMessage({ content: 1 })],
  ['reasoning that is an object', withMessage({ reasoning: {} })],
  ['tool calls that are an object', withMessage({ tool_calls: {} })],
  ['a tool call that is a string', withCall('read')],
  ['a tool call whose function is null', withCall({ function: null })],
  ['a tool call whose arguments are an object', withCall({ function: { name: 'read', arguments: {} } })],
  ['a tool call whose index is text', withCall({ index: '0' })],
  ['a finish reason that is a number', { choices: [{ message, finish_reason: 1 }] }],
  ['a second choice that is broken', { choices: [answer.choices[0], { message: 'x' }] }],
  ['usage without completion tokens', { ...answer, usage: { prompt_tokens: 1 } }],
  ['usage beyond any number', { ...answer, usage: { prompt_tokens: 1, completion_tokens: Infinity } }],
  ['a list at the top', [answer]],
  ['null at the top', null],
];

for (const [name, value] of answers) {
  test(`the quick check of an answer agrees with the completion schema: ${name}`, () => {
    assert.is(isCompletion(value), completionSchema.safeParse(value).success);
  });
}

test('the answers above include both accepted and refused shapes', () => {
  assert.equal(answers.map(([, value]) => isCompletion(value)), [true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false]);
});

test.run();
