import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ActorBoard } from '../../adapters/launcher/api/actor-board.js';
import type { Envelope } from '../../bus/index.js';

let seq = 0;
const event = (type: Envelope['type'], data: unknown, keys: Record<string, string> = {}) => ({ ...keys, seq: ++seq, at: 1000 + seq, type, data }) as Envelope;
const moved = (actor: string, machine: string, from: string | undefined, to: string, name: string, keys: Record<string, string> = {}) =>
  event('actor.transitioned', { actor, machine, ...(from ? { from } : {}), to, event: name }, keys);

test('the board folds every actor\'s transitions and stops, newest first; other events move nothing', () => {
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
  assert.equal(board.list().map((a) => [a.actor, a.machine, a.state, a.last_event, a.stopped]), [
    ['cron:j1', 'cron', 'running', 'FIRE', false],
    ['turn:t1', 'turn', 'calling_model', 'done.prompt', true],
    ['mcp:files', 'mcp_server', 'connecting', 'CONNECT', false],
    ['gateway', 'gateway', 'running', 'STARTED', false],
    ['channel:web', 'channel', 'connected', 'CONNECTED', false],
  ]);
  assert.equal(board.get('turn:t1')?.history.map((m) => [m.from ?? null, m.to]), [[null, 'building_prompt'], ['building_prompt', 'calling_model']]);
  assert.equal([board.get('turn:t1')?.session, board.get('turn:t1')?.turn, board.get('gateway')?.session], ['s1', 't1', undefined]);
});

test.run();
