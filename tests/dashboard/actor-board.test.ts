import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ActorBoard } from '../../adapters/launcher/api/actor-board.js';
import type { Envelope } from '../../bus/index.js';

let seq = 0;
const event = (type: Envelope['type'], data: unknown, keys: Record<string, string> = {}) =>
  ({ ...keys, seq: ++seq, at: 1000 + seq, type, data }) as Envelope;
const moved = (
  actor: string,
  machine: string,
  from: string | undefined,
  to: string,
  name: string,
  keys: Record<string, string> = {},
) => event('actor.transitioned', { actor, machine, ...(from ? { from } : {}), to, event: name }, keys);

test("the board folds every actor's transitions and stops, newest first; other events move nothing", () => {
  const board = new ActorBoard();
  const turn = { agent: 'main', session: 's1', turn: 't1' };
  [
    moved('gateway', 'gateway', undefined, 'starting', 'START'),
    moved('channel:web', 'channel', 'stopped', 'starting', 'START'),
    moved('channel:web', 'channel', 'starting', 'connected', 'CONNECTED'),
    moved('gateway', 'gateway', 'starting', 'running', 'STARTED'),
    moved('turn:t1', 'turn', undefined, 'building_prompt', 'xstate.init', turn),
    moved('turn:t1', 'turn', 'building_prompt', 'calling_model', 'done.prompt', turn),
    moved('mcp:files', 'mcp_server', 'idle', 'connecting', 'CONNECT'),
    event('heartbeat.ticked', { outcome: 'skipped', reason: 'no_tasks' }),
    event('actor.stopped', { actor: 'turn:t1', machine: 'turn', reason: 'completed' }),
    event('actor.stopped', { actor: 'never:seen', machine: 'turn' }),
    moved('cron:j1', 'cron', 'scheduled', 'running', 'FIRE'),
  ].forEach((e) => board.apply(e));
  assert.equal(
    board.list().map((a) => [a.actor, a.machine, a.state, a.last_event, a.stopped]),
    [
      ['cron:j1', 'cron', 'running', 'FIRE', false],
      ['turn:t1', 'turn', 'calling_model', 'done.prompt', true],
      ['mcp:files', 'mcp_server', 'connecting', 'CONNECT', false],
      ['gateway', 'gateway', 'running', 'STARTED', false],
      ['channel:web', 'channel', 'connected', 'CONNECTED', false],
    ],
  );
  assert.equal(
    board.get('turn:t1')?.history.map((m) => [m.from ?? null, m.to]),
    [
      [null, 'building_prompt'],
      ['building_prompt', 'calling_model'],
    ],
  );
  assert.equal(
    [board.get('turn:t1')?.session, board.get('turn:t1')?.turn, board.get('gateway')?.session],
    ['s1', 't1', undefined],
  );
});

test(
  "the board keeps what other events say: a failed channel's error until it moves on, " +
    "a turn's message, a session's key, and where each actor hangs",
  () => {
    const board = new ActorBoard();
    const keys = { agent: 'main', session: 's1', turn: 't1' };
    [
      moved('channel:tg', 'channel', 'stopped', 'starting', 'START'),
      moved('channel:tg', 'channel', 'starting', 'failed', 'FAILED'),
      event('channel.failed', {
        channel: 'tg',
        account: 'default',
        message: 'cannot reach the Bot API',
        restart_in_ms: 1000,
      }),
      moved('session:s1', 'session', 'idle', 'running', 'RECEIVED', { agent: 'main', session: 's1' }),
      event(
        'turn.started',
        {
          message_id: 'm',
          channel: 'pico',
          chat: 'direct:x',
          text: 'hello there',
          session_key: 'v=1|agent=main|channel=pico',
          settings: {},
        },
        keys,
      ),
      moved('turn:t1', 'turn', undefined, 'building_prompt', 'xstate.init', keys),
      event('turn.failed', { code: 'network', message: 'the model could not be reached', reply: 'Sorry' }, keys),
      moved('turn:t1', 'turn', 'building_prompt', 'failed', 'FAILED', keys),
      event('actor.stopped', { actor: 'turn:t1', machine: 'turn', reason: 'failed' }, keys),
    ].forEach((e) => board.apply(e));
    const view = (actor: string) => {
      const found = board.get(actor);
      return [found?.state, found?.reason, found?.parent, found?.text ?? found?.session_key];
    };
    assert.equal(view('channel:tg'), ['failed', 'cannot reach the Bot API', 'gateway', undefined]);
    assert.equal(view('turn:t1'), ['failed', 'the model could not be reached', 'session:s1', 'hello there']);
    assert.equal(view('session:s1'), ['running', undefined, 'agent:main', 'v=1|agent=main|channel=pico']);
    board.apply(moved('channel:tg', 'channel', 'failed', 'starting', 'START'));
    assert.equal(
      view('channel:tg'),
      ['starting', undefined, 'gateway', undefined],
      'a channel starting again has no failure to show',
    );
  },
);

test.run();
