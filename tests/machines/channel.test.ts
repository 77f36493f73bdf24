import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, fromCallback, type AnyActorRef } from 'xstate';
import { BoardInspector } from '../../actors/board.js';
import { clockOf } from '../../actors/scheduler.js';
import { channelBoard, channelMachine, type ChannelEvent, type ChannelInput } from '../../machines/channel.js';
import { given, movesOf, type Stage } from '../support/actor-kit.js';
import { ManualClock } from '../support/gateway-clock.js';

/**
 * The channel machine as its actor with a link the test drives (`report` is what the channel instance says) and
 * announcements recorded; a hand-moved clock runs the backoff.
 */
function channel(stage: Stage) {
  const clock = new ManualClock();
  const said: string[] = [];
  let links = 0;
  let live: ((event: ChannelEvent) => void) | undefined;
  const machine = channelMachine.provide({
    actors: {
      link: fromCallback<ChannelEvent, ChannelInput>(({ sendBack }) => {
        links++;
        live = sendBack;
        return () => {
          said.push(`link ${links} stopped`);
          live = undefined;
        };
      }),
    },
    actions: {
      accept: (_, { message }) => void said.push(`accept ${String(message)}`),
      announceConnected: () => void said.push('connected'),
      announceFailed: ({ context }) => void said.push(`failed: ${context.reason}, again in ${context.restartInMs} ms`),
      announceRefused: ({ context }) => void said.push(`refused: ${context.reason}`),
    },
  });
  const actor = createActor(machine, {
    input: { name: 'tg', kind: 'telegram', account: 'default', backoff: { baseMs: 100, maxMs: 350 } },
    clock: clockOf(clock),
    inspect: new BoardInspector(stage.bus, { channel: channelBoard }).inspect,
  });
  actor.start();
  return {
    actor: actor as AnyActorRef,
    clock,
    said,
    report: (event: ChannelEvent) => live?.(event),
    links: () => links,
  };
}

test(
  'when its link keeps failing, then it restarts after a backoff that doubles up to the limit; ' +
    'connecting resets it',
  () => {
    const stage = given();
    const { actor, clock, said, report, links } = channel(stage);
    actor.send({ type: 'START' });
    for (let i = 0; i < 4; i++) {
      report({ type: 'FAILED', reason: 'refused' });
      clock.advance(clock.pending()[0]!);
    }
    report({ type: 'CONNECTED' });
    report({ type: 'FAILED', reason: 'dropped' });
    assert.equal(said, [
      'failed: refused, again in 100 ms',
      'link 1 stopped',
      'failed: refused, again in 200 ms',
      'link 2 stopped',
      'failed: refused, again in 350 ms',
      'link 3 stopped',
      'failed: refused, again in 350 ms',
      'link 4 stopped',
      'connected',
      'failed: dropped, again in 100 ms',
      'link 5 stopped',
    ]);
    assert.is(links(), 5);
    assert.equal(movesOf(stage.published, 'channel:tg').slice(-3), [
      'failed->starting after.backoff',
      'starting->connected CONNECTED',
      'connected->failed FAILED',
    ]);
  },
);

test(
  'when a message comes on a live link, then it is accepted; ' +
    'when stopped, then the link stops and nothing restarts it',
  () => {
    const stage = given();
    const { actor, clock, said, report } = channel(stage);
    actor.send({ type: 'START' });
    report({ type: 'CONNECTED' });
    report({ type: 'MESSAGE', message: 'hello', commands: [] });
    actor.send({ type: 'STOP' });
    report({ type: 'MESSAGE', message: 'too late', commands: [] });
    assert.equal(said, ['connected', 'accept hello', 'link 1 stopped']);
    assert.equal([actor.getSnapshot().value, clock.pending()], ['stopped', []]);
  },
);

test('a stop during the backoff cancels the restart', () => {
  const stage = given();
  const { actor, clock, report, links } = channel(stage);
  actor.send({ type: 'START' });
  report({ type: 'FAILED', reason: 'refused' });
  actor.send({ type: 'STOP' });
  clock.advance(1000);
  assert.equal([actor.getSnapshot().value, links()], ['stopped', 1]);
});

test(
  'when its link fails in a way that lasts (an unknown kind), ' +
    'then it is refused and never restarted until started again',
  () => {
    const stage = given();
    const { actor, clock, said, report, links } = channel(stage);
    actor.send({ type: 'START' });
    report({ type: 'FAILED', reason: 'unknown kind', lasting: true });
    assert.equal(clock.pending(), []);
    assert.equal(said, ['refused: unknown kind', 'link 1 stopped']);
    actor.send({ type: 'START' });
    assert.is(links(), 2);
    assert.equal(movesOf(stage.published, 'channel:tg'), [
      '->stopped xstate.init',
      'stopped->starting START',
      'starting->refused FAILED',
      'refused->starting START',
    ]);
  },
);

test.run();
