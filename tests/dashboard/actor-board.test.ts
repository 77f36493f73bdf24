import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ActorBoard } from '../../adapters/launcher/api/actor-board.js';
import type { Envelope } from '../../bus/index.js';

let seq = 0;
const event = (type: Envelope['type'], data: unknown, keys: Record<string, string> = {}) => ({ ...keys, seq: ++seq, at: 1000 + seq, type, data }) as Envelope;

test('the board folds transitions, stops and the states gateway, channel, heartbeat and cron events imply', () => {
  const board = new ActorBoard();
  const events = [
    event('gateway.started', { pid: 1, channels: ['pico'] }),
    event('actor.transitioned', { actor: 'turn:t1', machine: 'turn', to: 'building_prompt', event: 'xstate.init' }, { session: 's1', turn: 't1' }),
    event('actor.transitioned', { actor: 'turn:t1', machine: 'turn', from: 'building_prompt', to: 'calling_model', event: 'done.prompt' }, { session: 's1', turn: 't1' }),
    event('channel.connected', { channel: 'telegram', account: 'default' }),
    event('heartbeat.ticked', { outcome: 'skipped', reason: 'no_tasks' }),
    event('cron.fired', { job: 'j1', kind: 'message' }),
    event('channel.failed', { channel: 'telegram', account: 'default', message: 'down' }),
    event('actor.stopped', { actor: 'turn:t1', machine: 'turn', reason: 'completed' }),
  ];
  events.forEach((e) => board.apply(e));
  assert.equal(board.list().map((a) => [a.actor, a.machine, a.state, a.last_event, a.stopped]), [
    ['turn:t1', 'turn', 'calling_model', 'done.prompt', true],
    ['channel:telegram:default', 'channel', 'failed', 'channel.failed', false],
    ['cron:j1', 'cron', 'fired', 'cron.fired', false],
    ['heartbeat', 'heartbeat', 'skipped', 'heartbeat.ticked', false],
    ['gateway', 'gateway', 'running', 'gateway.started', false],
  ]);
  assert.equal(board.get('turn:t1')?.history.map((m) => [m.from ?? null, m.to]), [[null, 'building_prompt'], ['building_prompt', 'calling_model']]);
  assert.equal(board.get('channel:telegram:default')?.history.map((m) => [m.from ?? null, m.to]), [[null, 'connected'], ['connected', 'failed']]);
  assert.equal([board.get('turn:t1')?.session, board.get('turn:t1')?.turn], ['s1', 't1']);
});

test.run();
