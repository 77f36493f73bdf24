import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { getCronJob, listCronJobs, putCronJob, removeCronJob, setCronJobEnabled } from '../../store/cron-db.js';
import { cronConfig, cronHarness, deliverJob, type CronHarness } from './cron-harness.js';

const MINUTE = 60_000;
const T0 = '2026-03-01T10:00:00.000Z';
const runs = suite<{ h: CronHarness }>('cron actor');

runs.after.each(({ h }) => h.close());

runs('an every job runs when due, is recorded, and is scheduled again from the end of the run', async (context) => {
  const h = (context.h = cronHarness(T0));
  await putCronJob(
    h.workspace,
    deliverJob('water', { kind: 'every', seconds: 600 }, { next_run_at: '2026-03-01T10:10:00.000Z' }),
  );
  await h.actor.start();
  await h.advance(9 * MINUTE);
  assert.equal(h.sent, []);
  await h.advance(MINUTE);
  assert.equal(h.sent, ['telegram/direct:42: water says hi']);
  const stored = await getCronJob(h.workspace, 'water');
  assert.equal(
    [stored?.last_run, stored?.next_run_at],
    [{ at: '2026-03-01T10:10:00.000Z', outcome: 'ok' }, '2026-03-01T10:20:00.000Z'],
  );
  assert.equal(h.transitions(), [
    'cron:water - -xstate.init-> scheduled',
    'fired water deliver',
    'cron:water scheduled -after.due-> running',
    'cron:water running -done.run-> scheduled',
  ]);
  assert.equal(h.actor.states(), [{ job: 'water', state: 'scheduled', due: '2026-03-01T10:20:00.000Z' }]);
});

runs('a cron job fires at each matching minute', async (context) => {
  const h = (context.h = cronHarness(T0));
  await putCronJob(h.workspace, deliverJob('quarter', { kind: 'cron', expr: '*/15 * * * *' }));
  await h.actor.start();
  for (let i = 0; i < 4; i++) await h.advance(15 * MINUTE);
  assert.is(h.sent.length, 4);
  assert.is((await getCronJob(h.workspace, 'quarter'))?.next_run_at, '2026-03-01T11:15:00.000Z');
});

runs('a one-shot that succeeds is removed; its machine ends in done', async (context) => {
  const h = (context.h = cronHarness(T0));
  await putCronJob(h.workspace, deliverJob('once', { kind: 'at', at: '2026-03-01T10:30:00.000Z' }));
  await h.actor.start();
  await h.advance(30 * MINUTE);
  assert.equal(h.sent, ['telegram/direct:42: once says hi']);
  assert.equal(await listCronJobs(h.workspace), []);
  assert.equal(h.transitions().slice(-2), ['cron:once running -done.run-> done', 'stopped cron:once (finished)']);
  assert.equal(h.actor.states(), []);
});

runs('a one-shot that fails is kept disabled with the reason, and is not retried', async (context) => {
  const h = (context.h = cronHarness(T0, {
    effects: { send: () => Promise.reject(new Error('no channel "telegram" is running')) },
  }));
  await putCronJob(h.workspace, deliverJob('once', { kind: 'at', at: '2026-03-01T10:30:00.000Z' }));
  await h.actor.start();
  await h.advance(30 * MINUTE);
  await h.advance(60 * MINUTE);
  const stored = await getCronJob(h.workspace, 'once');
  assert.equal(
    [stored?.enabled, stored?.last_run],
    [false, { at: '2026-03-01T10:30:00.000Z', outcome: 'failed', detail: 'no channel "telegram" is running' }],
  );
  assert.equal(h.transitions().filter((t) => t.startsWith('fired')).length, 1);
  assert.equal(h.actor.states(), [{ job: 'once', state: 'disabled' }]);
});

runs(
  'a text handed to the cluster member running its channel is a run done, saying so; ' +
    'a text that reached no chat is a failed run',
  async (context) => {
    const outcomes = [
      { kind: 'relayed' as const, to: 'tg1' },
      { kind: 'not_delivered' as const, reason: 'no channel "telegram" runs here' },
    ];
    const h = (context.h = cronHarness(T0, { effects: { send: async () => outcomes.shift()! } }));
    await putCronJob(
      h.workspace,
      deliverJob('water', { kind: 'every', seconds: 600 }, { next_run_at: '2026-03-01T10:10:00.000Z' }),
    );
    await h.actor.start();
    await h.advance(10 * MINUTE);
    assert.equal((await getCronJob(h.workspace, 'water'))?.last_run, {
      at: '2026-03-01T10:10:00.000Z',
      outcome: 'ok',
      detail: 'handed to the gateway running tg1 (queued there, not yet confirmed sent)',
    });
    await h.advance(10 * MINUTE);
    assert.equal((await getCronJob(h.workspace, 'water'))?.last_run, {
      at: '2026-03-01T10:20:00.000Z',
      outcome: 'failed',
      detail: 'no channel "telegram" runs here',
    });
  },
);

runs('a run missed while down happens once at start, then the schedule continues from then', async (context) => {
  const h = (context.h = cronHarness(T0));
  await putCronJob(
    h.workspace,
    deliverJob('water', { kind: 'every', seconds: 600 }, { next_run_at: '2026-03-01T07:00:00.000Z' }),
  );
  await putCronJob(h.workspace, deliverJob('late', { kind: 'at', at: '2026-03-01T08:00:00.000Z' }));
  await h.actor.start();
  await h.actor.settled();
  assert.equal(h.sent.sort(), ['telegram/direct:42: late says hi', 'telegram/direct:42: water says hi']);
  assert.equal(
    (await listCronJobs(h.workspace)).map((j) => [j.id, j.next_run_at]),
    [['water', '2026-03-01T10:10:00.000Z']],
  );
});

runs('store changes are picked up at the next poll: disable, enable, remove, add', async (context) => {
  const h = (context.h = cronHarness(T0));
  await putCronJob(
    h.workspace,
    deliverJob('a', { kind: 'every', seconds: 60 }, { next_run_at: '2026-03-01T10:01:00.000Z' }),
  );
  await h.actor.start();
  await setCronJobEnabled(h.workspace, 'a', false);
  await putCronJob(h.workspace, deliverJob('b', { kind: 'at', at: '2026-03-01T10:20:00.000Z' }));
  await h.advance(5000);
  assert.equal(h.actor.states(), [
    { job: 'a', state: 'disabled' },
    { job: 'b', state: 'scheduled', due: '2026-03-01T10:20:00.000Z' },
  ]);
  await removeCronJob(h.workspace, 'b');
  await h.advance(5000);
  await h.advance(30 * MINUTE);
  assert.equal(h.sent, []);
  assert.equal(h.transitions(), [
    'cron:a - -xstate.init-> scheduled',
    'cron:a scheduled -DISABLE-> disabled',
    'cron:b - -xstate.init-> scheduled',
    'cron:b scheduled -REMOVE-> done',
    'stopped cron:b (removed)',
  ]);
});

runs('the poll is stretched by power.poll_interval_multiplier', async (context) => {
  const h = (context.h = cronHarness(T0, { config: cronConfig({ power: { poll_interval_multiplier: 3 } }) }));
  await h.actor.start();
  assert.equal(h.clock.pending(), [15_000]);
});

runs('command jobs run with tools.cron.exec_timeout_minutes and report to their chat', async (context) => {
  const cases: Array<[number, number | undefined]> = [
    [5, 300_000],
    [0, undefined],
  ];
  for (const [minutes, timeoutMs] of cases) {
    const h = (context.h = cronHarness(T0, {
      config: cronConfig({ tools: { cron: { exec_timeout_minutes: minutes } } }),
    }));
    await putCronJob(h.workspace, {
      ...deliverJob('df', { kind: 'at', at: T0 }),
      job: { kind: 'command', command: 'df -h', channel: 'telegram', chat: 'direct:42' },
    });
    await h.actor.start();
    await h.close();
    assert.equal(h.commands, [{ command: 'df -h', timeoutMs }]);
    assert.equal(h.sent, ['telegram/direct:42: Scheduled command "df -h" ran:\ndone']);
  }
});

runs('command jobs do not run while tools.exec.enabled is false', async (context) => {
  const h = (context.h = cronHarness(T0, { config: cronConfig({ tools: { exec: { enabled: false } } }) }));
  await putCronJob(h.workspace, {
    ...deliverJob('df', { kind: 'every', seconds: 60 }),
    job: { kind: 'command', command: 'df -h' },
  });
  await h.actor.start();
  await h.advance(MINUTE);
  assert.equal(h.commands, []);
  assert.equal((await getCronJob(h.workspace, 'df'))?.last_run, {
    at: '2026-03-01T10:01:00.000Z',
    outcome: 'skipped',
    detail: 'command jobs do not run while tools.exec.enabled is false',
  });
});

runs('an agent_turn job runs a turn keyed by the job and delivers the reply', async (context) => {
  const h = (context.h = cronHarness(T0));
  await putCronJob(h.workspace, {
    ...deliverJob(
      'news',
      { kind: 'every', seconds: 3600 },
      { next_run_at: '2026-03-01T11:00:00.000Z', created_by: { channel: 'telegram', chat: 'direct:42' } },
    ),
    job: { kind: 'agent_turn', channel: 'telegram', chat: 'direct:42', message: 'summarize the news' },
  });
  await h.actor.start();
  await h.advance(60 * MINUTE);
  assert.equal(h.turns, [
    {
      job: 'news',
      run: `cron_news_${Date.parse('2026-03-01T11:00:00.000Z')}`,
      channel: 'telegram',
      chat: 'direct:42',
      message: 'summarize the news',
      remote: true,
    },
  ]);
  assert.equal(h.sent, ['telegram/direct:42: reply to summarize the news']);
});

runs('after stop nothing fires', async (context) => {
  const h = (context.h = cronHarness(T0));
  await putCronJob(
    h.workspace,
    deliverJob('a', { kind: 'every', seconds: 60 }, { next_run_at: '2026-03-01T10:01:00.000Z' }),
  );
  await h.actor.start();
  h.actor.stop();
  await h.advance(10 * MINUTE);
  assert.equal(h.sent, []);
  assert.equal(h.transitions(), ['cron:a - -xstate.init-> scheduled', 'stopped cron:a (the gateway is stopping)']);
  assert.equal(h.clock.pending(), []);
});

runs.run();
