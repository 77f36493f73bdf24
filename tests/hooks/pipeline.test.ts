import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rerunTurn } from '../../actors/replay.js';
import { createHooks, emitterHook, type Envelope, type Hooks } from '../../bus/index.js';
import { startTurnFixture, type TurnFixture } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';

const toolCall = (id: string, name: string, args: unknown) => ({
  id,
  type: 'function' as const,
  function: { name, arguments: JSON.stringify(args) },
});
const calls = (...list: Array<[string, string, unknown]>) =>
  completion({ tool_calls: list.map(([id, name, args]) => toolCall(id, name, args)) }, 'tool_calls');
const turnOf = (reply: { kind: string }) => (reply as unknown as { turn: string }).turn;
const ofTurn = <T extends Envelope['type']>(f: TurnFixture, turn: string, type: T) =>
  f.events.filter((e): e is Envelope<T> => e.turn === turn && e.type === type);
const body = (f: TurnFixture, index: number) =>
  JSON.parse(f.vendor.requests[index]!.body.toString()) as {
    model: string;
    messages: Array<{ role: string; content: string; tool_call_id?: string }>;
  };
const toolMessages = (f: TurnFixture, index: number) =>
  body(f, index)
    .messages.filter((m) => m.role === 'tool')
    .map((m) => m.content);

/** A fixture with one in-process hook (a plugin's mitt emitter) set up by `on`. */
async function withHook(
  on: (hooks: Hooks) => void,
  run: (f: TurnFixture) => Promise<void>,
  overrides: Parameters<typeof startTurnFixture>[0] = {},
): Promise<void> {
  const f = await startTurnFixture(overrides);
  try {
    const hooks = createHooks();
    on(hooks);
    f.runtime.hooks.add(emitterHook('inproc', 0, hooks));
    await run(f);
  } finally {
    await f.close();
  }
}

const test = suite('the hook pipeline in real turns');

test('no hook can turn a sandbox refusal into something else; other results it may change', async () => {
  await withHook(
    (hooks) =>
      hooks.on('after_tool', (ask) => ask.decide({ action: 'modify', result: { content: `HOOKED ${ask.call.name}` } })),
    async (f) => {
      f.vendor.reply(
        calls(['c1', 'read_file', { path: '.env' }], ['c2', 'exec', { command: 'echo plain' }]),
        completion({ content: 'done' }),
      );
      const reply = await f.send('read .env and echo');
      assert.equal(toolMessages(f, 1), ['access denied: .env is a protected file', 'HOOKED exec']);
      assert.equal(
        ofTurn(f, turnOf(reply), 'hook.decided').map((e) => [e.data.point, e.data.call_id]),
        [['after_tool', 'c2']],
      );
    },
  );
});

test(
  'a tool the turn profile leaves out stays refused: ' + 'hooks are not asked, and cannot move a call onto it',
  async () => {
    await withHook(
      (hooks) =>
        hooks.on('before_tool', (ask) =>
          ask.decide(
            ask.call.name === 'exec'
              ? { action: 'modify', call: { name: 'read_file', arguments: { path: 'x' } } }
              : { action: 'continue' },
          ),
        ),
      async (f) => {
        f.vendor.reply(
          calls(['c1', 'read_file', { path: 'AGENT.md' }], ['c2', 'exec', { command: 'echo hi' }]),
          completion({ content: 'ok' }),
        );
        const reply = await f.send('try both');
        assert.equal(toolMessages(f, 1), [
          'tool "read_file" is not available in this turn',
          'Tool call refused: hook inproc changed it to "read_file", which is not available in this turn',
        ]);
        assert.equal(
          ofTurn(f, turnOf(reply), 'hook.decided').map((e) => e.data.call_id),
          ['c2'],
        );
      },
      { defaults: { turn_profile: { enabled: true, tools: { mode: 'custom', custom: { allow: ['exec'] } } } } },
    );
  },
);

test(
  'before_llm changes the request (system prompt and messages), after_llm the answer; ' + 'rerun is identical',
  async () => {
    await withHook(
      (hooks) => {
        hooks.on('before_llm', (ask) =>
          ask.decide({
            action: 'modify',
            request: {
              system: 'You are terse.',
              messages: [...ask.request.messages, { role: 'user', content: 'Context from a hook.' }],
            },
          }),
        );
        hooks.on('after_llm', (ask) =>
          ask.decide({ action: 'modify', answer: { text: `${ask.answer.text} (checked)` } }),
        );
      },
      async (f) => {
        f.vendor.reply(completion({ content: 'Hello.' }));
        const reply = await f.send('hi');
        assert.equal(reply.kind === 'turn' && reply.text, 'Hello. (checked)');
        const sent = body(f, 0).messages;
        assert.equal(sent[0], { role: 'system', content: 'You are terse.' });
        assert.equal(sent.at(-1), { role: 'user', content: 'Context from a hook.' });
        assert.equal(ofTurn(f, turnOf(reply), 'provider.responded')[0]!.data.text, 'Hello. (checked)');
        await f.runtime.log.flushed();
        assert.equal(await rerunTurn(f.runtime.log.read({ turn: turnOf(reply) })), { identical: true, compared: 6 });
      },
    );
  },
);

test('respond gives the tool result without running the tool; after_tool is not asked for it', async () => {
  await withHook(
    (hooks) => {
      hooks.on('before_tool', (ask) =>
        ask.decide({ action: 'respond', reason: 'cached', result: { ok: true, content: 'from the cache' } }),
      );
      hooks.on('after_tool', (ask) => ask.decide({ action: 'modify', result: { content: 'changed' } }));
    },
    async (f) => {
      f.vendor.reply(calls(['c1', 'exec', { command: 'touch never-made' }]), completion({ content: 'ok' }));
      const reply = await f.send('go');
      assert.equal(toolMessages(f, 1), ['from the cache']);
      assert.equal(
        ofTurn(f, turnOf(reply), 'hook.decided').map((e) => e.data.action),
        ['respond'],
      );
    },
  );
});

test("abort_turn ends the turn with the hook's reason; hard_abort also drops what waits in the session", async () => {
  await withHook(
    (hooks) =>
      hooks.on('before_llm', (ask) => {
        const text = ask.request.messages.at(-1)?.content ?? '';
        ask.decide(
          text.includes('ABORT')
            ? { action: 'abort_turn', reason: 'not today' }
            : text.includes('HARD')
              ? { action: 'hard_abort', reason: 'emergency stop' }
              : { action: 'continue' },
        );
      }),
    async (f) => {
      const aborted = await f.send('ABORT please');
      assert.equal(aborted.kind === 'turn' && [aborted.outcome, aborted.text], [
        'failed',
        'The turn was ended by hook inproc: not today',
      ]);
      assert.equal(ofTurn(f, turnOf(aborted), 'turn.failed')[0]!.data, {
        code: 'hook_abort_turn',
        message: 'hook inproc ended the turn at before_llm: not today',
        reply: 'The turn was ended by hook inproc: not today',
      });
      f.vendor.reply(completion({ content: 'later one' }));
      const [hard, waiting1, waiting2] = await Promise.all([
        f.send('HARD stop'),
        f.send('queued one'),
        f.send('queued two'),
      ]);
      assert.equal(hard.kind === 'turn' && [hard.outcome, hard.text], [
        'failed',
        'The turn was ended by hook inproc: emergency stop',
      ]);
      assert.equal([waiting1, waiting2], [{ kind: 'none' }, { kind: 'none' }]);
      assert.equal(f.events.filter((e) => e.type === 'message.dropped').length, 2);
      const after = await f.send('a new message');
      assert.equal(after.kind === 'turn' && after.text, 'later one');
      assert.is(f.vendor.requests.length, 1, 'no model call for aborted or dropped messages');
    },
  );
});

test.run();
