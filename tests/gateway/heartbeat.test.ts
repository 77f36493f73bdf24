import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { firstValueFrom } from 'rxjs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Heartbeat, heartbeatMinutes } from '../../actors/gateway/heartbeat.js';
import { validateConfig, type Config } from '../../store/config/index.js';
import { Logger } from '../../store/logs/logger.js';
import { readLastChannel, writeLastChannel } from '../../store/state.js';
import { ManualClock } from '../support/gateway-clock.js';
import { startTurnFixture, type TurnFixture } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';
import { Redactor } from '../../store/config/index.js';

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
  ['low power with its own interval 60', { heartbeat: { interval: 30 }, power: { low_power: true, low_power_heartbeat_interval: 60 } }, 60],
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
  notified: string[];
  heartbeat: Heartbeat;
  settings: Config;
}

const runs = suite<Context>('heartbeat runs');

runs.before.each(async (context) => {
  context.fixture = await startTurnFixture();
  context.clock = new ManualClock();
  context.notified = [];
  context.settings = context.fixture.runtime.loaded.config;
  context.heartbeat = new Heartbeat({
    engine: async () => context.fixture.runtime,
    bus: context.fixture.runtime.bus,
    logger: new Logger([], 'debug', Redactor.none),
    scheduler: context.clock,
    config: () => context.settings,
    workspace: context.fixture.home.workspace,
    notify: async (text) => {
      context.notified.push(text);
      return true;
    },
  });
});

runs.after.each(async ({ fixture, heartbeat }) => {
  heartbeat.stop();
  await fixture.close();
});

const tasks = (workspace: string, text: string): void => writeFileSync(join(workspace, 'HEARTBEAT.md'), text);

runs('it first fires after heartbeat.interval minutes of the injected clock, and again after each run', async ({ fixture, clock, heartbeat }) => {
  tasks(fixture.home.workspace, '# Periodic tasks\n');
  heartbeat.start();
  assert.equal(clock.pending(), [30 * 60_000]);
  const ticked = fixture.next('heartbeat.ticked');
  clock.advance(30 * 60_000 - 1);
  assert.equal(clock.pending(), [1]);
  clock.advance(1);
  assert.equal((await ticked).data, { outcome: 'skipped', reason: 'no_tasks' });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(clock.pending(), [30 * 60_000]);
});

runs('a HEARTBEAT.md with only headings and comments is skipped as no_tasks, without calling the model', async ({ fixture, heartbeat }) => {
  tasks(fixture.home.workspace, '# Heartbeat\n\n<!-- add tasks below -->\n## Daily\n');
  assert.equal(await heartbeat.tick(), { kind: 'skipped', reason: 'no_tasks' });
  assert.is(fixture.vendor.requests.length, 0);
});

runs('heartbeat.enabled false is skipped as disabled', async (context) => {
  tasks(context.fixture.home.workspace, '- check the inbox\n');
  context.settings = config({ heartbeat: { enabled: false } });
  assert.equal(await context.heartbeat.tick(), { kind: 'skipped', reason: 'disabled' });
  const [event] = context.fixture.events.filter((e) => e.type === 'heartbeat.ticked');
  assert.equal(event?.data, { outcome: 'skipped', reason: 'disabled' });
});

runs('an answer of HEARTBEAT_OK sends nothing', async ({ fixture, heartbeat, notified }) => {
  tasks(fixture.home.workspace, '- check the inbox\n');
  fixture.vendor.reply(completion({ content: 'HEARTBEAT_OK' }));
  const outcome = await heartbeat.tick();
  assert.equal(outcome, { kind: 'ran', reply: 'HEARTBEAT_OK', delivered: false });
  assert.equal(notified, []);
  const prompt = JSON.stringify(JSON.parse(fixture.vendor.requests[0]!.body.toString()).messages);
  assert.match(prompt, /check the inbox/);
});

runs('any other answer goes to the last active channel', async ({ fixture, heartbeat, notified }) => {
  tasks(fixture.home.workspace, '- check the inbox\n');
  fixture.vendor.reply(completion({ content: 'You have 3 unread invoices.' }));
  assert.equal(await heartbeat.tick(), { kind: 'ran', reply: 'You have 3 unread invoices.', delivered: true });
  assert.equal(notified, ['You have 3 unread invoices.']);
  const started = fixture.events.find((e) => e.type === 'turn.started');
  assert.is(started?.type === 'turn.started' ? started.data.channel : '', 'system');
});

runs('a heartbeat while the default agent is busy is skipped as busy', async ({ fixture, heartbeat }) => {
  tasks(fixture.home.workspace, '- check the inbox\n');
  fixture.vendor.reply({ status: 200, headers: { 'content-type': 'application/json' }, chunks: [], after: 'stall' });
  const started = firstValueFrom(fixture.runtime.bus.on('provider.requested'));
  void fixture.send('a long job');
  await started;
  assert.equal(await heartbeat.tick(), { kind: 'skipped', reason: 'busy' });
});

const moves = (fixture: TurnFixture): string[] =>
  fixture.events.flatMap((e) => (e.type === 'actor.transitioned' && e.data.actor === 'heartbeat' ? [`${e.data.from}->${e.data.to} ${e.data.event}`] : []));

runs('its machine moves waiting → running → waiting around a run, disabled when switched off, stopped at the end', async (context) => {
  const { fixture, clock, heartbeat } = context;
  tasks(fixture.home.workspace, '- check the inbox\n');
  fixture.vendor.reply(completion({ content: 'HEARTBEAT_OK' }));
  heartbeat.start();
  const ticked = fixture.next('heartbeat.ticked');
  clock.advance(30 * 60_000);
  await ticked;
  await new Promise((resolve) => setImmediate(resolve));
  context.settings = config({ heartbeat: { enabled: false } });
  heartbeat.start();
  heartbeat.stop();
  assert.equal(moves(fixture), ['stopped->waiting SCHEDULE', 'waiting->running TICK', 'running->waiting FINISHED', 'waiting->disabled SCHEDULE', 'disabled->stopped STOP']);
  assert.is(heartbeat.state, 'stopped');
  const transitioned = fixture.events.find((e) => e.type === 'actor.transitioned' && e.data.actor === 'heartbeat');
  assert.is(transitioned?.type === 'actor.transitioned' ? transitioned.data.machine : '', 'heartbeat');
});

runs('a skipped tick moves nothing', async ({ fixture, heartbeat }) => {
  tasks(fixture.home.workspace, '# only a heading\n');
  heartbeat.start();
  assert.equal(await heartbeat.tick(), { kind: 'skipped', reason: 'no_tasks' });
  assert.equal(moves(fixture), ['stopped->waiting SCHEDULE']);
});

runs.run();

const state = suite('last active channel');
state('is written atomically and read back; a damaged file reads as none', async () => {
  const fixture = await startTurnFixture();
  const workspace = fixture.home.workspace;
  assert.is(readLastChannel(workspace), undefined);
  const last = { channel: 'telegram', account: 'default', chat: 'direct:42', reply_to: '42', at: '2026-11-22T00:00:00.000Z' };
  writeLastChannel(workspace, last);
  assert.equal(readLastChannel(workspace), last);
  writeFileSync(join(workspace, 'state', 'last-channel.json'), '{"channel":');
  assert.is(readLastChannel(workspace), undefined);
  await fixture.close();
});
state.run();
