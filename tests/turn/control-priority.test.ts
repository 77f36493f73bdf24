// Control events take the priority path: `/stop` and a shutdown reach a session's running turn at once, never after
// the messages queued behind it (given a long turn and five queued messages → when the control event is published →
// then these events).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HELP_TEXT } from '../../actors/chat-commands.js';
import { RuntimeCore } from '../../actors/runtime-core.js';
import type { Envelope } from '../../bus/index.js';
import { loadConfig } from '../../store/config/index.js';
import { message, startTurnFixture, type TurnFixture } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';

const stalled = { status: 200, headers: { 'content-type': 'application/json' }, chunks: [], after: 'stall' as const };
const QUEUED = ['two', 'three', 'four', 'five', 'six'];

/** Resolves once the model server holds `count` requests. */
async function arrived(f: TurnFixture, count: number): Promise<void> {
  while (f.vendor.requests.length < count) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * A message from a Telegram chat (its answer goes back there, so a restart takes it up again). An ask still waiting
 * when the runtime closes is rejected (request_aborted): the shutdown cases leave the queued ones so on purpose.
 */
const fromChat = (f: TurnFixture, text: string) => {
  const asked = f.runtime.ask({
    ...message(text, 's1'),
    reply: { channel: 'telegram', chat: 'direct:s1', reply_to: 's1' },
  });
  asked.catch(() => undefined);
  return asked;
};

/** Given a turn waiting on a model that never answers, and five messages queued behind it in the same session. */
async function longTurnAndFiveQueued(
  f: TurnFixture,
): Promise<{ first: Promise<unknown>; queued: Array<Promise<unknown>> }> {
  f.vendor.reply(stalled);
  const first = fromChat(f, 'a long job');
  await arrived(f, 1);
  const queued = QUEUED.map((text) => fromChat(f, text));
  const routed = f.events.filter((e) => e.type === 'message.routed').length;
  assert.is(routed, 6, 'six messages routed to the session');
  return { first, queued };
}

const types = (events: Envelope[]): string[] =>
  events.flatMap((e) =>
    ['turn.started', 'turn.completed', 'turn.stopped', 'turn.aborted', 'reply.requested'].includes(e.type)
      ? [e.type]
      : [],
  );

const test = suite('control events skip the queue');

test(
  'given a long turn and five queued messages, when /stop is published, ' +
    'then the running turn stops at once and the queue runs after it',
  async () => {
    const f = await startTurnFixture();
    try {
      const { first, queued } = await longTurnAndFiveQueued(f);
      f.vendor.reply(...QUEUED.map((text) => completion({ content: `answer ${text}` })));
      const before = f.events.length;
      assert.equal(await f.send('/stop'), { kind: 'none' });
      assert.equal(await first, {
        kind: 'turn',
        turn: f.events.find((e) => e.type === 'turn.started')?.turn ?? '',
        outcome: 'stopped',
        text: 'Stopped.',
      });
      // The stop came first: when the stopped turn's answer is out, no queued message has finished.
      const stopped = f.events.slice(before);
      assert.equal(types(stopped).slice(0, 2), ['turn.stopped', 'reply.requested']);
      assert.is(stopped.filter((e) => e.type === 'turn.completed').length, 0);
      const answers = await Promise.all(queued);
      assert.equal(
        answers.map((a) => (a as { text: string }).text),
        QUEUED.map((text) => `answer ${text}`),
      );
      assert.equal(types(f.events), [
        'turn.started',
        'turn.stopped',
        'reply.requested',
        ...QUEUED.flatMap(() => ['turn.started', 'turn.completed', 'reply.requested']),
      ]);
      const stop = f.events.find((e) => e.type === 'turn.stopped');
      assert.equal(stop?.data, { reason: 'stop_requested', reply: 'Stopped.' });
    } finally {
      await f.close();
    }
  },
);

/** `promise`, or a failure naming `what` once `ms` have passed without it settling. */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)),
  );
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

test(
  'given a long turn, when /help, /list, /show and /subagents are sent, ' +
    'then each is answered at once while the turn runs',
  async () => {
    const f = await startTurnFixture();
    try {
      f.vendor.reply(stalled);
      const first = fromChat(f, 'a long job');
      await arrived(f, 1);
      const commands = ['/help', '/list mcp', '/show mcp files', '/subagents'];
      const answers = await within(
        5_000,
        'the read-only commands',
        Promise.all(commands.map((text) => fromChat(f, text))),
      );
      assert.equal(answers, [
        { kind: 'command', text: HELP_TEXT },
        { kind: 'command', text: 'MCP is not configured.' },
        { kind: 'command', text: 'MCP is not configured.' },
        { kind: 'command', text: 'No subagent tasks are running in this chat.' },
      ]);
      // The turn still runs: it started, and nothing has ended it.
      assert.equal(types(f.events), [
        'turn.started',
        'reply.requested',
        'reply.requested',
        'reply.requested',
        'reply.requested',
      ]);
      assert.equal(
        f.events.filter((e) => e.type === 'command.handled').map((e) => e.data),
        [
          { command: 'help', args: '', reply: HELP_TEXT },
          { command: 'list', args: 'mcp', reply: 'MCP is not configured.' },
          { command: 'show', args: 'mcp files', reply: 'MCP is not configured.' },
          { command: 'subagents', args: '', reply: 'No subagent tasks are running in this chat.' },
        ],
      );
      assert.equal(await f.send('/stop'), { kind: 'none' });
      assert.is(((await first) as { outcome: string }).outcome, 'stopped');
    } finally {
      await f.close();
    }
  },
);

test(
  'given a long turn and five queued messages, when the process shuts down, ' +
    'then the running turn is aborted at once, nothing queued starts, and all six are taken up at the next start',
  async () => {
    const f = await startTurnFixture();
    let next: RuntimeCore | undefined;
    try {
      const { queued } = await longTurnAndFiveQueued(f);
      const started = Date.now();
      await f.runtime.close({ reason: 'the process is shutting down' });
      assert.ok(Date.now() - started < 5_000, 'the shutdown did not wait for the stalled model or the queue');
      assert.equal(types(f.events), ['turn.started', 'turn.aborted']);
      assert.equal(f.events.find((e) => e.type === 'turn.aborted')?.data, { reason: 'the process is shutting down' });
      void queued;
      // Nothing accepted is lost: the next start hands every one of the six messages to its session again.
      next = RuntimeCore.open(loadConfig({ env: f.home.env }), 'gateway', { resume: true });
      const requeued = next.recovered.requeued.flatMap((e) => (e.type === 'message.routed' ? [e.data.text] : []));
      assert.equal(requeued, ['a long job', ...QUEUED]);
    } finally {
      await next?.close();
      await f.vendor.close();
      f.home.remove();
    }
  },
);

test.run();
