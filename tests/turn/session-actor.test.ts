import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sessionIdOf, type Envelope } from '../../bus/index.js';
import { completion } from '../support/vendor-chat-completions.js';
import { json } from '../support/vendor-server.js';
import { keyOf, startTurnFixture, type TurnFixture } from '../support/turn-fixture.js';
import { withoutTime } from '../support/user-time.js';

type Move = {
  from?: string;
  to: string;
  event: string;
  context?: Record<string, unknown>;
  agent?: string;
  session?: string;
};

/** The `actor.transitioned` events of one actor, as the board reads them. */
const movesOf = (events: Envelope[], actor: string): Move[] =>
  events.flatMap((e) =>
    e.type === 'actor.transitioned' && e.data.actor === actor
      ? [
          {
            from: e.data.from,
            to: e.data.to,
            event: e.data.event,
            context: e.data.context,
            agent: e.agent,
            session: e.session,
          },
        ]
      : [],
  );
const stopsOf = (events: Envelope[], actor: string) =>
  events.flatMap((e) => (e.type === 'actor.stopped' && e.data.actor === actor ? [e.data] : []));

const stalled = { status: 200, headers: { 'content-type': 'application/json' }, chunks: [], after: 'stall' as const };

/**
 * Resolves once the model server holds `count` requests (`provider.requested` is published before the request leaves).
 */
async function arrived(f: TurnFixture, count: number): Promise<void> {
  while (f.vendor.requests.length < count) await new Promise((resolve) => setImmediate(resolve));
}

const test = suite('actor transitions of sessions, agents and turns');

test(
  'a turn moves its session loading → preparing → running → idle, ' + 'each move published once with the queue length',
  async () => {
    const f = await startTurnFixture();
    try {
      const session = sessionIdOf(keyOf('s1'));
      f.vendor.reply(completion({ content: 'hello' }));
      await f.send('hi');
      const at = (to: string, from: string | undefined, event: string) => ({
        from,
        to,
        event,
        context: { queued: 0 },
        agent: 'main',
        session,
      });
      assert.equal(movesOf(f.events, `session:${session}`), [
        at('loading', undefined, 'xstate.init'),
        at('handling.preparing', 'loading', 'done.history'),
        at('handling.running', 'handling.preparing', 'done.prepare'),
        at('idle', 'handling.running', 'done.turn'),
      ]);
      const started = f.events.findIndex((e) => e.type === 'turn.started');
      const running = f.events.findIndex((e) => e.type === 'actor.transitioned' && e.data.to === 'handling.running');
      const completed = f.events.findIndex((e) => e.type === 'turn.completed');
      const idle = f.events.findLastIndex(
        (e) => e.type === 'actor.transitioned' && e.data.actor === `session:${session}`,
      );
      assert.ok(
        started < running && completed < idle,
        'the turn starts as the session runs it, and ends before the session is idle',
      );
    } finally {
      await f.close();
    }
  },
);

test(
  'a message behind a running turn is counted as queued; ' + '/stop skips the queue and ends the running turn at once',
  async () => {
    const f = await startTurnFixture();
    try {
      const actor = `session:${sessionIdOf(keyOf('s1'))}`;
      f.vendor.reply(stalled);
      const first = f.send('a slow question');
      await arrived(f, 1);
      const second = f.send('and then this');
      assert.equal(movesOf(f.events, actor).at(-1), {
        from: 'handling.running',
        to: 'handling.running',
        event: 'MESSAGE',
        context: { queued: 1 },
        agent: 'main',
        session: actor.slice(8),
      });
      f.vendor.reply(completion({ content: 'second answered' }));
      assert.equal(await f.send('/stop'), { kind: 'none' });
      assert.not.ok(
        movesOf(f.events, actor).some((m) => m.context?.queued === 2),
        '/stop is not queued',
      );
      assert.is(((await first) as { outcome: string }).outcome, 'stopped');
      assert.is(((await second) as { text: string }).text, 'second answered');
      assert.equal(
        movesOf(f.events, actor).map((m) => [m.from, m.to, m.event, m.context]),
        [
          [undefined, 'loading', 'xstate.init', { queued: 0 }],
          ['loading', 'handling.preparing', 'done.history', { queued: 0 }],
          ['handling.preparing', 'handling.running', 'done.prepare', { queued: 0 }],
          ['handling.running', 'handling.running', 'MESSAGE', { queued: 1 }],
          ['handling.running', 'handling.preparing', 'done.turn', { queued: 0 }],
          ['handling.preparing', 'handling.running', 'done.prepare', { queued: 0 }],
          ['handling.running', 'idle', 'done.turn', { queued: 0 }],
        ],
      );
    } finally {
      await f.close();
    }
  },
);

test('a turn publishes each move with the event that caused it, /stop included', async () => {
  const f = await startTurnFixture();
  try {
    f.vendor.reply(stalled);
    const running = f.send('a slow question');
    await arrived(f, 1);
    await f.send('/stop');
    const { turn } = (await running) as { turn: string };
    assert.equal(
      movesOf(f.events, `turn:${turn}`).map((m) => [m.from, m.to, m.event]),
      [
        [undefined, 'building_prompt', 'xstate.init'],
        ['building_prompt', 'calling_model', 'done.prompt'],
        ['calling_model', 'stopped', 'STOP'],
      ],
    );
    assert.equal(stopsOf(f.events, `turn:${turn}`), [{ actor: `turn:${turn}`, machine: 'turn', reason: 'stopped' }]);
  } finally {
    await f.close();
  }
});

test('a failed model call is the move into failed, caused by the failed call', async () => {
  const f = await startTurnFixture();
  try {
    f.vendor.reply(json({ error: { message: 'bad key', type: 'invalid_request_error' } }, 401));
    const { turn } = (await f.send('hello')) as { turn: string };
    assert.equal(
      movesOf(f.events, `turn:${turn}`)
        .map((m) => [m.from, m.to, m.event])
        .at(-1),
      ['calling_model', 'failed', 'error.model'],
    );
    assert.equal(stopsOf(f.events, `turn:${turn}`), [{ actor: `turn:${turn}`, machine: 'turn', reason: 'failed' }]);
  } finally {
    await f.close();
  }
});

test('the agent counts the sessions it opens and publishes its shutdown; every actor is stopped', async () => {
  const f = await startTurnFixture();
  const a = `session:${sessionIdOf(keyOf('a'))}`;
  const b = `session:${sessionIdOf(keyOf('b'))}`;
  f.vendor.reply(completion({ content: 'one' }), completion({ content: 'two' }), completion({ content: 'three' }));
  await f.send('first', 'a');
  await f.send('second', 'b');
  await f.send('third', 'a');
  await f.close();
  assert.equal(
    movesOf(f.events, 'agent:main').map((m) => [m.from, m.to, m.event, m.context, m.agent, m.session]),
    [
      [undefined, 'serving', 'xstate.init', { sessions: 0 }, 'main', undefined],
      ['serving', 'serving', 'MESSAGE', { sessions: 1 }, 'main', undefined],
      ['serving', 'serving', 'MESSAGE', { sessions: 2 }, 'main', undefined],
      ['serving', 'stopping', 'STOP', { sessions: 2 }, 'main', undefined],
      ['stopping', 'stopped', 'done.sessions', { sessions: 2 }, 'main', undefined],
    ],
  );
  const reason = 'the process is shutting down';
  assert.equal(
    [stopsOf(f.events, a), stopsOf(f.events, b), stopsOf(f.events, 'agent:main')],
    [
      [{ actor: a, machine: 'session', reason }],
      [{ actor: b, machine: 'session', reason }],
      [{ actor: 'agent:main', machine: 'agent', reason }],
    ],
  );
});

test(
  'past its limit an agent lets its least recently used idle session leave memory; ' +
    'its next message loads its history from the log',
  async () => {
    const f = await startTurnFixture({}, { sessionLimit: 2 });
    try {
      f.vendor.reply(
        completion({ content: 'one' }),
        completion({ content: 'two' }),
        completion({ content: 'three' }),
        completion({ content: 'four' }),
      );
      await f.send('remember the word tern', 'a');
      await f.send('hello', 'b');
      await f.send('hello', 'c');
      const a = `session:${sessionIdOf(keyOf('a'))}`;
      assert.equal(stopsOf(f.events, a), [{ actor: a, machine: 'session', reason: 'idle' }]);
      await f.send('what word?', 'a');
      const prompt = JSON.parse(f.vendor.requests[3]!.body.toString()) as { messages: Array<{ content: string }> };
      assert.equal(
        prompt.messages.slice(1).map((m) => withoutTime(String(m.content))),
        ['remember the word tern', 'one', 'what word?'],
      );
      assert.equal(
        movesOf(f.events, 'agent:main').at(-1)?.context,
        { sessions: 4 },
        'a session loaded again counts as opened',
      );
    } finally {
      await f.close();
    }
  },
);

test.run();
