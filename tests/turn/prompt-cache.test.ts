// Prompt caching in real turns: loopback vendors that cache as the vendors do (tests/support/vendor-prompt-cache.ts)
// report cached tokens, and provider.responded carries them for every family.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../bus/index.js';
import { startTurnFixture, type TurnFixture } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';
import { message } from '../support/vendor-messages.js';
import {
  breakpointPaths,
  cacheBlocks,
  chatCompletionsPromptCache,
  commonPrefix,
  messagesPromptCache,
  tooManyBreakpoints,
} from '../support/vendor-prompt-cache.js';
import { json, type RecordedRequest } from '../support/vendor-server.js';

const _noon = () => new Date('2026-11-27T12:00:30Z');
/** A clock the test moves on: each turn starts minutes after the one before, as turns of a chat do. */
function laterEachTurn() {
  let at = Date.parse('2026-11-27T12:00:30Z');
  return { now: () => new Date(at), wait: (minutes: number) => (at += minutes * 60_000) };
}
const usages = (f: TurnFixture) =>
  f.events.filter((e): e is Envelope<'provider.responded'> => e.type === 'provider.responded').map((e) => e.data.usage);
const bodyAt = (f: TurnFixture, i: number) =>
  JSON.parse(f.vendor.requests[i]!.body.toString()) as Record<string, unknown>;

test(
  'messages: breakpoints after the tools, the system prompt, the earlier history and the last message; ' +
    'later calls and turns in other minutes read the cache',
  async () => {
    const clock = laterEachTurn();
    const f = await startTurnFixture(
      {
        defaults: { model: 'claude' },
        models: [{ model_name: 'claude', provider: 'anthropic', model: 'claude-test' }],
      },
      { now: clock.now },
    );
    try {
      const cache = messagesPromptCache();
      const cached =
        (blocks: Parameters<typeof message>[0], stop = 'end_turn') =>
        (request: RecordedRequest) => {
          const usage = cache.usage(request);
          return 'error' in usage
            ? tooManyBreakpoints(usage.error)
            : message(blocks, stop, { ...usage, output_tokens: 4 });
        };
      f.vendor.reply(
        cached([{ type: 'tool_use', id: 'toolu_1', name: 'list_dir', input: { path: '.' } }], 'tool_use'),
        cached([{ type: 'text', text: 'Three files.' }]),
        cached([{ type: 'text', text: 'You are welcome.' }]),
        cached([{ type: 'text', text: 'Bye.' }]),
      );
      await f.send('What is here?');
      clock.wait(7);
      await f.send('Thanks!');
      clock.wait(3);
      await f.send('Bye!');
      // Our last tool: the vendor's own web_search (prefer_native) follows it unmarked.
      const last = (bodyAt(f, 0).tools as Array<Record<string, unknown>>).findLastIndex((t) => 'input_schema' in t);
      assert.equal(
        [0, 1, 2, 3].map((i) => breakpointPaths(bodyAt(f, i))),
        [
          [`tools[${last}]`, 'system[0]', 'messages[0].content[0]'],
          [`tools[${last}]`, 'system[0]', 'messages[2].content[0]'],
          [`tools[${last}]`, 'system[0]', 'messages[1].content[0]', 'messages[2].content[0]'],
          [`tools[${last}]`, 'system[0]', 'messages[3].content[0]', 'messages[4].content[0]'],
        ],
      );
      const [first, second, third, fourth] = usages(f);
      assert.is(first!.cached_input_tokens, undefined);
      assert.ok(first!.cache_write_input_tokens! > 0);
      assert.is(first!.input_tokens, first!.cache_write_input_tokens);
      // The turn's second call reads everything the first wrote.
      assert.is(second!.cached_input_tokens, first!.cache_write_input_tokens);
      // Seven minutes later the next turn still reads the tools and the system prompt (which name no time), and three
      // minutes after that the third turn reads the conversation through the second turn's history as well: only the
      // newest message carries the time, and the history keeps each message as the user wrote it.
      const through = (request: number, block: (blocks: string[]) => number) => {
        const { blocks } = cacheBlocks(bodyAt(f, request));
        return Math.ceil(Buffer.byteLength(blocks.slice(0, block(blocks) + 1).join('')) / 4);
      };
      assert.is(
        third!.cached_input_tokens,
        through(2, (blocks) => blocks.findIndex((b) => b.startsWith('["system"'))),
      );
      assert.is(
        fourth!.cached_input_tokens,
        through(3, (blocks) => blocks.length - 4),
      );
      assert.match(
        JSON.stringify(bodyAt(f, 3).messages),
        /"content":"Thanks!".*"text":"\[2026-11-27 12:10 UTC\] Bye!"/,
      );
    } finally {
      await f.close();
    }
  },
);

test(
  'chat-completions: each turn repeats the one before byte for byte through its history, ' +
    'in any minute, and cached_tokens are recorded',
  async () => {
    const clock = laterEachTurn();
    const f = await startTurnFixture({}, { now: clock.now });
    try {
      const cache = chatCompletionsPromptCache();
      f.vendor.reply(
        ...['pong', 'Noon.', 'Bye.'].map(
          (content) => (r: RecordedRequest) => completion({ content }, 'stop', cache.usage(r)),
        ),
      );
      await f.send('ping');
      clock.wait(7);
      await f.send('What time is it?');
      clock.wait(1);
      await f.send('Bye');
      const [first, second, third] = f.vendor.requests.map((r) => r.body);
      // The newest message alone names its minute: a request differs from the one before from that message on.
      assert.is(commonPrefix(first!, second!), first!.indexOf('[2026-11-27 12:00 UTC] ping'));
      assert.is(commonPrefix(second!, third!), second!.indexOf('[2026-11-27 12:07 UTC] What time is it?'));
      assert.ok(commonPrefix(second!, third!) > second!.indexOf('"ping"'));
      const shared = [commonPrefix(first!, second!), commonPrefix(second!, third!)];
      assert.equal(usages(f), [
        { input_tokens: Math.ceil(first!.length / 4), output_tokens: 5 },
        {
          input_tokens: Math.ceil(second!.length / 4),
          output_tokens: 5,
          cached_input_tokens: Math.floor(shared[0]! / 4),
        },
        {
          input_tokens: Math.ceil(third!.length / 4),
          output_tokens: 5,
          cached_input_tokens: Math.floor(shared[1]! / 4),
        },
      ]);
    } finally {
      await f.close();
    }
  },
);

test('generate-content: cachedContentTokenCount is recorded as the cached share', async () => {
  const f = await startTurnFixture({
    defaults: { model: 'g' },
    models: [{ model_name: 'g', provider: 'gemini', model: 'gemini-test', api_base: '{vendor}/v1beta' }],
  });
  try {
    f.vendor.reply(
      json({
        candidates: [{ content: { role: 'model', parts: [{ text: 'pong' }] }, finishReason: 'STOP' }],
        usageMetadata: {
          promptTokenCount: 5000,
          cachedContentTokenCount: 4096,
          candidatesTokenCount: 2,
          totalTokenCount: 5002,
        },
      }),
    );
    await f.send('ping');
    assert.equal(usages(f), [{ input_tokens: 5000, output_tokens: 2, cached_input_tokens: 4096 }]);
  } finally {
    await f.close();
  }
});

test.run();
