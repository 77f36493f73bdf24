import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { putCronJob, type CronJob } from '../../store/cron-db.js';
import { call } from '../launcher/launcher-harness.js';
import { startDashboard } from '../support/dashboard-harness.js';

const base = { enabled: false, created_at: '2026-11-01T08:00:00.000Z', created_by: { channel: 'cli' } };

const jobs: Array<[CronJob, Record<string, unknown>]> = [
  [
    {
      ...base,
      id: 'water',
      name: 'drink water',
      schedule: { kind: 'every', seconds: 3600 },
      job: { kind: 'deliver', channel: 'telegram', chat: '42', text: 'drink water' },
    },
    {
      id: 'water',
      name: 'drink water',
      schedule: 'every 3600 s',
      kind: 'deliver',
      enabled: false,
      next_run: '',
      last_outcome: 'never ran',
    },
  ],
  [
    {
      ...base,
      id: 'report',
      name: 'weekly report',
      created_at: '2026-11-02T08:00:00.000Z',
      schedule: { kind: 'cron', expr: '0 9 * * 1', tz: 'Europe/Oslo' },
      job: { kind: 'agent_turn', channel: 'telegram', chat: '42', message: 'write the report' },
      next_run_at: '2026-11-23T08:00:00.000Z',
      last_run: { at: '2026-11-16T08:00:01.000Z', outcome: 'failed', detail: 'model unreachable' },
    },
    {
      id: 'report',
      name: 'weekly report',
      schedule: 'cron 0 9 * * 1 (Europe/Oslo)',
      kind: 'agent_turn',
      enabled: false,
      next_run: '2026-11-23T08:00:00.000Z',
      last_outcome: 'failed at 2026-11-16T08:00:01.000Z: model unreachable',
    },
  ],
  [
    {
      ...base,
      id: 'once',
      name: 'restart once',
      created_at: '2026-11-03T08:00:00.000Z',
      schedule: { kind: 'at', at: '2027-01-01T00:00:00.000Z' },
      job: { kind: 'command', command: '/clear' },
    },
    {
      id: 'once',
      name: 'restart once',
      schedule: 'once at 2027-01-01T00:00:00.000Z',
      kind: 'command',
      enabled: false,
      next_run: '',
      last_outcome: 'never ran',
    },
  ],
];

test(
  '/api/cron lists the jobs of the workspace database with schedule, ' +
    'kind, enabled, next run and last outcome, also with the gateway stopped',
  async () => {
    const dashboard = await startDashboard();
    try {
      for (const [job] of jobs) await putCronJob(dashboard.home.workspace, job);
      const listed = await call(dashboard.launcher, '/api/cron', { cookie: dashboard.cookie });
      assert.equal([listed.status, listed.body], [200, { cron: jobs.map(([, row]) => row) }]);
      await dashboard.host.stop();
      const stopped = await call(dashboard.launcher, '/api/cron', { cookie: dashboard.cookie });
      assert.equal(stopped.body, { cron: jobs.map(([, row]) => row) });
    } finally {
      await dashboard.close();
    }
  },
);

test.run();
