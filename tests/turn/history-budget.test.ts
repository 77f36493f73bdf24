// The peer runtime's context_window, summarize_message_threshold and summarize_token_percent, seen on the wire of a
// loopback chat-completions vendor: what each request carries and when a session.compacted summary is made.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../bus/index.js';
import { startTurnFixture, type TurnFixture } from '../support/turn-fixture.js';
import { withoutTime } from '../support/user-time.js';
import { completion } from '../support/vendor-chat-completions.js';

type Body = { messages: Array<{ role: string; content: unknown }> };
const bodyOf = (f: TurnFixture, i: number) => JSON.parse(f.vendor.requests[i]!.body.toString()) as Body;
/** What a request carries after its system prompt, without the time on user messages. */
const sentAt = (f: TurnFixture, i: number) =>
  bodyOf(f, i)
    .messages.slice(1)
    .map((m) => withoutTime(String(m.content)));
const compactions = (f: TurnFixture) =>
  f.events.filter((e): e is Envelope<'session.compacted'> => e.type === 'session.compacted');
/** No tools, so what fits the window depends on the messages alone (and a short system prompt). */
const NO_TOOLS = { turn_profile: { enabled: true, tools: { mode: 'off' } } };
/** 2000 characters: about 814 tokens by the estimate (2.5 characters a token, with the time and framing). */
const long = (i: number) => `question ${i} ${'x'.repeat(1988 - String(i).length)}`;

async function talk(f: TurnFixture, turns: number): Promise<void> {
  for (let i = 1; i <= turns; i++) {
    f.vendor.reply(completion({ content: `answer ${i}` }));
    await f.send(long(i));
  }
}

test('context_window: the oldest turns are left out of a prompt that would not fit (answer room kept)', async () => {
  const f = await startTurnFixture({
    defaults: { context_window: 4096, max_tokens: 1024, summarize_token_percent: 100, ...NO_TOOLS },
  });
  try {
    await talk(f, 5);
    // 4096 − 1024 for the answer: the request and two earlier turns fit, a third would not.
    assert.equal(sentAt(f, 4), [long(3), 'answer 3', long(4), 'answer 4', long(5)]);
    assert.equal(compactions(f), []);
  } finally {
    await f.close();
  }
});

test('summarize_message_threshold: a history of more messages than it is summarized before the next turn', async () => {
  const f = await startTurnFixture({ defaults: { summarize_message_threshold: 6, ...NO_TOOLS } });
  try {
    await talk(f, 4);
    assert.equal(compactions(f), [], 'six messages before turn 4 are not more than six');
    f.vendor.reply(completion({ content: 'Three long questions.' }), completion({ content: 'answer 5' }));
    await f.send(long(5));
    // Eight messages: the newest third (whole turns) stays, the rest is folded into the summary.
    assert.match(
      String(bodyOf(f, 4).messages[1]!.content),
      /^Conversation:\nuser: .*question 1 x+\nassistant: answer 1\n/,
    );
    assert.match(String(bodyOf(f, 4).messages[1]!.content), /assistant: answer 3$/);
    const [written, ...more] = compactions(f);
    assert.is(more.length, 0);
    assert.is(written!.data.summary, 'Three long questions.');
    assert.equal(
      written!.data.messages.map((m) => withoutTime(m.content)),
      [long(4), 'answer 4'],
    );
    assert.equal(sentAt(f, 5), [long(4), 'answer 4', long(5)]);
  } finally {
    await f.close();
  }
});

test('summarize_token_percent: a history past that share of context_window is summarized, fewer kept', async () => {
  const f = await startTurnFixture({
    defaults: { context_window: 8192, summarize_token_percent: 25, ...NO_TOOLS },
  });
  try {
    await talk(f, 3);
    assert.equal(compactions(f), [], 'two turns (about 1644 tokens) are within 2048');
    f.vendor.reply(completion({ content: 'Two long questions.' }), completion({ content: 'answer 4' }));
    await f.send(long(4));
    // Three turns (about 2466 tokens) pass 25 % of 8192; what stays verbatim is within half of that.
    const [written, ...more] = compactions(f);
    assert.is(more.length, 0);
    assert.equal(
      written!.data.messages.map((m) => withoutTime(m.content)),
      [long(3), 'answer 3'],
    );
    assert.equal(sentAt(f, 4), [long(3), 'answer 3', long(4)]);
  } finally {
    await f.close();
  }
});

test.run();
