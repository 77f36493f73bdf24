import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, fromCallback, fromPromise } from 'xstate';
import type { McpLink } from '../../adapters/mcp/link.js';
import { connectionOf } from '../../actors/mcp/connection-state.js';
import { serverMoves } from '../../actors/mcp/server-moves.js';
import { clockOf } from '../../actors/scheduler.js';
import {
  mcpServerMachine,
  type ConnectInput,
  type McpServerEvent,
  type WatchInput,
} from '../../machines/mcp-server.js';
import { ManualClock } from '../support/gateway-clock.js';

type Answer = (event: McpServerEvent) => void;
const tool = (name: string) => ({ name, inputSchema: { type: 'object' as const } });
const link = (id: string) => ({ id }) as unknown as McpLink;

/**
 * A server machine on a hand-moved clock whose client and transport are the test's: each connection attempt waits for
 * the test to answer it, the watch of a live link is the test's to speak through, and `said` is what the host saw.
 */
function server(backoff = { initialMs: 100, maxMs: 250 }) {
  const clock = new ManualClock();
  const attempts: Array<{ attempt: number; answer: Answer }> = [];
  const watching: Array<{ link: McpLink; say: Answer }> = [];
  const said: string[] = [];
  const machine = mcpServerMachine.provide({
    actors: {
      connect: fromCallback<McpServerEvent, ConnectInput>(({ input, sendBack }) => {
        attempts.push({ attempt: input.attempt, answer: sendBack });
        return () => said.push(`attempt ${input.attempt} ended`);
      }),
      watch: fromCallback<McpServerEvent, WatchInput>(({ input, sendBack }) => {
        watching.push({ link: input.link, say: sendBack });
        return () => said.push(`watch of ${(input.link as unknown as { id: string }).id} ended`);
      }),
      close: fromPromise<void, McpLink>(async ({ input }) => {
        said.push(`closed ${(input as unknown as { id: string }).id}`);
      }),
    },
  });
  const moves: string[] = [];
  const actor = createActor(machine, {
    input: { server: 'files', backoff },
    clock: clockOf(clock),
    inspect: serverMoves(({ from, to, event }) => moves.push(`${from}->${to} ${event}`)),
  }).start();
  const state = () => connectionOf(actor.getSnapshot());
  return { actor, clock, attempts, watching, said, moves, state };
}

const refuse = (reason: string): McpServerEvent => ({ type: 'FAILED', reason });

test('given a server that refuses, when it connects, then each retry waits twice as long, up to the cap', () => {
  const { actor, clock, attempts, moves, state } = server();
  actor.send({ type: 'CONNECT' });
  attempts.at(-1)?.answer(refuse('spawn ENOENT'));
  assert.equal([state(), clock.pending()], [{ state: 'failed', reason: 'spawn ENOENT', retryInMs: 100 }, [100]]);
  clock.advance(99);
  assert.equal(attempts.length, 1, 'no attempt before the wait has passed');
  clock.advance(1);
  assert.equal(state(), { state: 'connecting', attempt: 2 });
  attempts.at(-1)?.answer(refuse('spawn ENOENT'));
  assert.equal(clock.pending(), [200]);
  clock.advance(200);
  attempts.at(-1)?.answer(refuse('spawn ENOENT'));
  assert.equal(clock.pending(), [250], 'the wait stops growing at maxMs');
  assert.equal(
    attempts.map((a) => a.attempt),
    [1, 2, 3],
  );
  assert.equal(moves, [
    'idle->connecting CONNECT',
    'connecting->failed FAILED',
    'failed->connecting after.retry',
    'connecting->failed FAILED',
    'failed->connecting after.retry',
    'connecting->failed FAILED',
  ]);
});

test('given a live connection, when the server announces tools, then it stays connected with the new list', () => {
  const { actor, attempts, watching, moves, state } = server();
  actor.send({ type: 'CONNECT' });
  attempts[0]?.answer({ type: 'CONNECTED', link: link('l1'), tools: [tool('read')] });
  assert.equal(state(), { state: 'connected', tools: 1 });
  assert.equal(actor.getSnapshot().context.link, link('l1'));
  watching[0]?.say({ type: 'TOOLS_CHANGED', tools: [tool('read'), tool('write')] });
  assert.equal(state(), { state: 'connected', tools: 2 });
  assert.equal(
    actor.getSnapshot().context.tools.map((t) => t.name),
    ['read', 'write'],
  );
  assert.equal(moves, [
    'idle->connecting CONNECT',
    'connecting->connected CONNECTED',
    'connected->connected TOOLS_CHANGED',
  ]);
});

test('given a connection that failed twice, when it connects and then drops, then the wait starts over', () => {
  const { actor, clock, attempts, watching, said, state } = server();
  actor.send({ type: 'CONNECT' });
  attempts.at(-1)?.answer(refuse('refused'));
  clock.advance(100);
  attempts.at(-1)?.answer(refuse('refused'));
  clock.advance(200);
  attempts.at(-1)?.answer({ type: 'CONNECTED', link: link('l1'), tools: [] });
  watching[0]?.say({ type: 'FAILED', reason: 'connection closed' });
  assert.equal(state(), { state: 'failed', reason: 'connection closed', retryInMs: 100 });
  assert.equal(actor.getSnapshot().context.link, undefined, 'a dropped link is let go');
  assert.equal(said, ['attempt 1 ended', 'attempt 2 ended', 'attempt 3 ended', 'watch of l1 ended']);
});

test('given a live connection, when stopped, then the client is closed before the server is disabled', async () => {
  const { actor, attempts, said, moves, state } = server();
  actor.send({ type: 'CONNECT' });
  attempts[0]?.answer({ type: 'CONNECTED', link: link('l1'), tools: [tool('read')] });
  actor.send({ type: 'STOP' });
  assert.equal(String(actor.getSnapshot().value), 'closing');
  await new Promise((resolve) => actor.subscribe({ complete: () => resolve(undefined) }));
  assert.equal([actor.getSnapshot().status, state()], ['done', { state: 'disabled' }]);
  assert.equal(said, ['attempt 1 ended', 'watch of l1 ended', 'closed l1']);
  assert.equal(moves.slice(-2), ['connected->closing STOP', 'closing->disabled done.close']);
});

test('when stopped while it waits to retry, or while it connects, then no timer is left and the attempt ends', () => {
  const waiting = server();
  waiting.actor.send({ type: 'CONNECT' });
  waiting.attempts[0]?.answer(refuse('refused'));
  waiting.actor.send({ type: 'STOP' });
  assert.equal([waiting.actor.getSnapshot().status, waiting.clock.pending()], ['done', []]);

  const connecting = server();
  connecting.actor.send({ type: 'CONNECT' });
  connecting.actor.send({ type: 'STOP' });
  assert.equal([connecting.actor.getSnapshot().status, connecting.said], ['done', ['attempt 1 ended']]);
  assert.equal(connecting.moves, ['idle->connecting CONNECT', 'connecting->disabled STOP']);
});

test.run();
