import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { filter, firstValueFrom } from 'rxjs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { SendOutcome } from '../../adapters/tools/options.js';
import { BoardInspector } from '../../actors/board.js';
import { Deliveries } from '../../actors/deliveries.js';
import { heartbeatBoard } from '../../machines/heartbeat.js';
import { Heartbeat, heartbeatMinutes } from '../../actors/gateway/heartbeat.js';
import { clockOf } from '../../actors/scheduler.js';
import { Redactor, validateConfig, type Config } from '../../store/config/index.js';
import { Logger } from '../../store/logs/logger.js';
import { RotatingFile } from '../../store/logs/rotating-file.js';
import { readLastChannel, writeLastChannel } from '../../store/state.js';
import { ManualClock } from '../support/gateway-clock.js';
import { movesOf } from '../support/actor-kit.js';
import { startTurnFixture, type TurnFixture } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';

function config(input: Record<string, unknown>): Config {
  const result = validateConfig({ version: 2, ...input });
  if (!result.ok) throw new Error(result.problems.join('; '));
  return result.config;
}

const intervals = suite('heartbeat interval');
const table: Array<[string, Record<string, unknown>, number]> = [
  ['default: 30 minutes', {}, 30],
  ['heartbeat.interval 10', { heartbeat: { interval: 10 } }, 10],
  ['low power: low_power_heartbeat_interval (default 120)', { power: { low_power: true } }, 120],
  ['low power, a larger normal interval wins', { heartbeat: { interval: 180 }, power: { low_power: true } }, 180],
  [
    'low power with its own interval 60',
    { heartbeat: { interval: 30 }, power: { low_power: true, low_power_heartbeat_interval: 60 } },
    60,
  ],
];
for (const [name, input, minutes] of table) intervals(name, () => assert.is(heartbeatMinutes(config(input)), minutes));
intervals('an interval under 5 minutes is a config error naming the field', () => {
  const result = validateConfig({ version: 2, heartbeat: { interval: 2 } });
  assert.is(result.ok, false);
  assert.match(result.ok ? '' : result.problems.join(';'), /heartbeat\.interval/);
});
intervals.run();

interface Context {
  fixture: TurnFixture;
  clock: ManualClock;
  heartbeat: Heartbeat;
  settings: Config;
  deliveries: Deliveries;
  /** What the heartbeat asked the outbox to deliver; each is answered delivered, as the outbox would. */
  delivered: Array<{ text: string; channel: string; chat: string }>;
  /** What delivering an answer comes to instead of the outbox sending it (handed to another member, lost). */
  outcome?: SendOutcome;
  /** The heartbeat's log, `<workspace>/heartbeat.log`. */
  logger: Logger;
  logFile: string;
}

const runs = suite<Context>('heartbeat runs (given HEARTBEAT.md and the config, when the interval passes, then …)');

runs.before.each(async (context) => {
  context.fixture = await startTurnFixture();
  context.clock = new ManualClock();
  context.delivered = [];
  context.settings = context.fixture.runtime.loaded.config;
  const { bus } = context.fixture.runtime;
  context.deliveries = new Deliveries(bus);
  bus.work('outbox').subscribe((e) => {
    context.delivered.push({ text: e.data.text, channel: e.data.reply!.channel, chat: e.data.reply!.chat });
    bus.publish({
      type: 'reply.delivered',
      data: { message_id: e.data.message_id, key: e.data.key, parts: 1, failed: false },
    });
  });
  context.outcome = undefined;
  context.logFile = join(context.fixture.home.workspace, 'heartbeat.log');
  context.logger = new Logger(
    [new RotatingFile(context.logFile, { maxBytes: 1 << 20, backups: 0 })],
    'debug',
    Redactor.none,
  );
  writeLastChannel(context.fixture.home.workspace, {
    channel: 'telegram',
    account: 'default',
    chat: 'direct:42',
    reply_to: '42',
    at: '2026-11-22T00:00:00.000Z',
  });
  context.heartbeat = new Heartbeat({
    engine: async () => context.fixture.runtime,
    loadedEngine: () => context.fixture.runtime,
    bus,
    logger: context.logger,
    clock: clockOf(context.clock),
    now: () => context.clock.now(),
    config: () => context.settings,
    workspace: context.fixture.home.workspace,
    deliver: async (delivery) => {
      if (context.outcome) return context.outcome;
      return (await context.deliveries.send(delivery))
        ? { kind: 'sent' }
        : { kind: 'not_delivered', reason: 'not every part went out on telegram' };
    },
    inspect: new BoardInspector(bus, { heartbeat: heartbeatBoard }).inspect,
  });
});

runs.after.each(async ({ fixture, heartbeat, deliveries, logger }) => {
  heartbeat.stop();
  deliveries.close();
  logger.close();
  await fixture.close();
});

const tasks = (workspace: string, text: string): void => writeFileSync(join(workspace, 'HEARTBEAT.md'), text);
const MINUTES_30 = 30 * 60_000;

/** Moves the clock past one interval and resolves with the tick's `heartbeat.ticked`. */
async function tick(context: Context, ms = MINUTES_30): Promise<unknown> {
  const ticked = context.fixture.next('heartbeat.ticked');
  context.clock.advance(ms);
  return (await ticked).data;
}

runs(
  'it first fires after heartbeat.interval minutes of the injected clock, and again after each run',
  async (context) => {
    const { fixture, clock, heartbeat } = context;
    tasks(fixture.home.workspace, '# Periodic tasks\n');
    heartbeat.start();
    assert.equal(clock.pending(), [MINUTES_30]);
    const ticked = fixture.next('heartbeat.ticked');
    clock.advance(MINUTES_30 - 1);
    assert.equal(clock.pending(), [1]);
    clock.advance(1);
    assert.equal((await ticked).data, { outcome: 'skipped', reason: 'no_tasks' });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(clock.pending(), [MINUTES_30]);
  },
);

runs(
  'a HEARTBEAT.md with only headings and comments is skipped as no_tasks, without calling the model',
  async (context) => {
    tasks(context.fixture.home.workspace, '# Heartbeat\n\n<!-- add tasks below -->\n## Daily\n');
    context.heartbeat.start();
    assert.equal(await tick(context), { outcome: 'skipped', reason: 'no_tasks' });
    assert.is(context.fixture.vendor.requests.length, 0);
  },
);

runs('heartbeat.enabled false moves it to disabled: no timer, no tick', async (context) => {
  tasks(context.fixture.home.workspace, '- check the inbox\n');
  context.settings = config({ heartbeat: { enabled: false } });
  context.heartbeat.start();
  assert.equal([context.heartbeat.state, context.clock.pending()], ['disabled', []]);
});

runs(
  'a tick after the config turned the heartbeat off without a reschedule is skipped as disabled',
  async (context) => {
    tasks(context.fixture.home.workspace, '- check the inbox\n');
    context.heartbeat.start();
    context.settings = config({ heartbeat: { enabled: false } });
    assert.equal(await tick(context), { outcome: 'skipped', reason: 'disabled' });
  },
);

runs('an answer of HEARTBEAT_OK sends nothing', async (context) => {
  const { fixture, heartbeat, delivered } = context;
  tasks(fixture.home.workspace, '- check the inbox\n');
  fixture.vendor.reply(completion({ content: 'HEARTBEAT_OK' }));
  heartbeat.start();
  assert.equal(await tick(context), { outcome: 'ran' });
  assert.equal(delivered, []);
  const prompt = JSON.stringify(JSON.parse(fixture.vendor.requests[0]!.body.toString()).messages);
  assert.match(prompt, /check the inbox/);
});

runs('any other answer goes to the last active channel', async (context) => {
  const { fixture, heartbeat, delivered } = context;
  tasks(fixture.home.workspace, '- check the inbox\n');
  fixture.vendor.reply(completion({ content: 'You have 3 unread invoices.' }));
  heartbeat.start();
  assert.equal(await tick(context), { outcome: 'ran' });
  assert.equal(delivered, [{ text: 'You have 3 unread invoices.', channel: 'telegram', chat: 'direct:42' }]);
  const started = fixture.events.find((e) => e.type === 'turn.started');
  assert.is(started?.type === 'turn.started' ? started.data.channel : '', 'system');
});

runs(
  'its log says what became of the answer: none, sent, handed to the member running its channel, not delivered',
  async (context) => {
    const { fixture, heartbeat } = context;
    tasks(fixture.home.workspace, '- check the inbox\n');
    heartbeat.start();
    const outcomes: Array<[string, SendOutcome | undefined]> = [
      ['HEARTBEAT_OK', undefined],
      ['You have 3 unread invoices.', undefined],
      ['You have 3 unread invoices.', { kind: 'relayed', to: 'tg2' }],
      ['You have 3 unread invoices.', { kind: 'not_delivered', reason: 'no channel "telegram" runs here' }],
    ];
    for (const [answer, outcome] of outcomes) {
      context.outcome = outcome;
      fixture.vendor.reply(completion({ content: answer }));
      assert.equal(await tick(context), { outcome: 'ran' });
    }
    const lines = readFileSync(context.logFile, 'utf8')
      .split('\n')
      .filter((line) => line.includes('heartbeat ran'))
      .map((line) => line.replace(/^\S+ /, ''));
    assert.equal(lines, [
      'INFO heartbeat ran',
      'INFO heartbeat ran, answer sent',
      'INFO heartbeat ran, answer handed to the gateway running tg2 (queued there, not yet confirmed sent)',
      'WARN heartbeat ran, answer not delivered reason="no channel \\"telegram\\" runs here"',
    ]);
  },
);

runs('a heartbeat while the default agent is busy is skipped as busy', async (context) => {
  const { fixture, heartbeat } = context;
  tasks(fixture.home.workspace, '- check the inbox\n');
  fixture.vendor.reply({ status: 200, headers: { 'content-type': 'application/json' }, chunks: [], after: 'stall' });
  const started = firstValueFrom(fixture.runtime.bus.on('provider.requested'));
  // Still running when the fixture closes, which abandons its ask.
  fixture.send('a long job').catch(() => undefined);
  await started;
  heartbeat.start();
  assert.equal(await tick(context), { outcome: 'skipped', reason: 'busy' });
});

runs(
  'its machine moves waiting → running → waiting around a run, disabled when switched off, stopped at the end',
  async (context) => {
    const { fixture, heartbeat } = context;
    tasks(fixture.home.workspace, '- check the inbox\n');
    fixture.vendor.reply(completion({ content: 'HEARTBEAT_OK' }));
    heartbeat.start();
    await tick(context);
    context.settings = config({ heartbeat: { enabled: false } });
    heartbeat.start();
    heartbeat.stop();
    assert.equal(movesOf(fixture.events, 'heartbeat'), [
      '->stopped xstate.init',
      'stopped->waiting SCHEDULE',
      'waiting->running after.interval',
      'running->waiting done.beat',
      'waiting->disabled SCHEDULE',
      'disabled->stopped STOP',
    ]);
    assert.is(heartbeat.state, 'stopped');
  },
);

runs(
  'a turn that has not answered by the next tick is given up: the run fails and the heartbeat waits again',
  async (context) => {
    const { fixture, heartbeat, clock } = context;
    tasks(fixture.home.workspace, '- check the inbox\n');
    fixture.vendor.reply({ status: 200, headers: { 'content-type': 'application/json' }, chunks: [], after: 'stall' });
    heartbeat.start();
    const asked = firstValueFrom(fixture.runtime.bus.on('provider.requested'));
    clock.advance(MINUTES_30);
    await asked;
    assert.is(heartbeat.state, 'running');
    const failed = firstValueFrom(
      fixture.runtime.bus.on('actor.transitioned').pipe(filter((e) => e.data.actor === 'heartbeat')),
    );
    clock.advance(MINUTES_30);
    assert.equal((await failed).data.to, 'waiting');
    assert.equal(clock.pending(), [MINUTES_30]);
    const lines = readFileSync(context.logFile, 'utf8')
      .split('\n')
      .filter((line) => line.includes('heartbeat failed'));
    assert.equal(
      lines.map((line) => line.replace(/^\S+ /, '')),
      ['ERROR heartbeat failed reason="no answer to message.routed within 1800000 ms"'],
    );
  },
);

runs('a skipped tick moves nothing', async (context) => {
  tasks(context.fixture.home.workspace, '# only a heading\n');
  context.heartbeat.start();
  assert.equal(await tick(context), { outcome: 'skipped', reason: 'no_tasks' });
  assert.is(context.heartbeat.state, 'waiting');
});

runs.run();

const state = suite('last active channel');
state('is written atomically and read back; a damaged file reads as none', async () => {
  const fixture = await startTurnFixture();
  const workspace = fixture.home.workspace;
  assert.is(readLastChannel(workspace), undefined);
  const last = {
    channel: 'telegram',
    account: 'default',
    chat: 'direct:42',
    reply_to: '42',
    at: '2026-11-22T00:00:00.000Z',
  };
  writeLastChannel(workspace, last);
  assert.equal(readLastChannel(workspace), last);
  writeFileSync(join(workspace, 'state', 'last-channel.json'), '{"channel":');
  assert.is(readLastChannel(workspace), undefined);
  await fixture.close();
});
state.run();
