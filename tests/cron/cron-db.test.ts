import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  cronDir,
  getCronJob,
  listCronJobs,
  putCronJob,
  recordCronRun,
  removeCronJob,
  setCronJobEnabled,
  type CronJob,
  type SkippedCronRecord,
} from '../../store/cron-db.js';

const roots: string[] = [];

function workspace(): string {
  const root = mkdtempSync(join(tmpdir(), 'tern-'));
  roots.push(root);
  return join(root, 'workspace');
}

test.after(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

function job(id: string, created_at: string): CronJob {
  return {
    id,
    name: `job ${id}`,
    schedule: { kind: 'every', seconds: 600 },
    job: { kind: 'deliver', channel: 'telegram', chat: '42', text: 'drink water' },
    enabled: true,
    created_at,
    created_by: { channel: 'cli' },
  };
}

const RUN = { at: '2026-01-01T10:00:00.000Z', outcome: 'ok' as const };

test('stored jobs are listed oldest first, exactly as written', async () => {
  const ws = workspace();
  await putCronJob(ws, job('b', '2026-01-01T09:00:00.000Z'));
  await putCronJob(ws, job('a', '2026-01-01T10:00:00.000Z'));
  assert.equal(await listCronJobs(ws), [job('b', '2026-01-01T09:00:00.000Z'), job('a', '2026-01-01T10:00:00.000Z')]);
});

test('an empty workspace has no jobs', async () => {
  assert.equal(await listCronJobs(workspace()), []);
});

test('a job that does not match the schema is refused and nothing is written', async () => {
  const ws = workspace();
  const bad = { ...job('a', '2026-01-01T10:00:00.000Z'), schedule: { kind: 'every', seconds: 0 } } as CronJob;
  await putCronJob(ws, bad).then(
    () => assert.unreachable('should refuse'),
    () => {},
  );
  assert.equal(await listCronJobs(ws), []);
});

test('remove, enable and disable answer undefined for an unknown id', async () => {
  const ws = workspace();
  assert.is(await removeCronJob(ws, 'nope'), undefined);
  assert.is(await setCronJobEnabled(ws, 'nope', false), undefined);
  assert.is(await recordCronRun(ws, 'nope', RUN, { then: 'remove' }), undefined);
});

test('disable keeps the job; enable counts the next run from now', async () => {
  const ws = workspace();
  await putCronJob(ws, { ...job('a', '2026-01-01T10:00:00.000Z'), next_run_at: '2026-01-01T10:10:00.000Z' });
  assert.is((await setCronJobEnabled(ws, 'a', false))?.enabled, false);
  assert.equal(await getCronJob(ws, 'a'), {
    ...job('a', '2026-01-01T10:00:00.000Z'),
    enabled: false,
    next_run_at: '2026-01-01T10:10:00.000Z',
  });
  await setCronJobEnabled(ws, 'a', true, new Date('2026-01-02T08:00:00.000Z'));
  assert.equal(await getCronJob(ws, 'a'), {
    ...job('a', '2026-01-01T10:00:00.000Z'),
    next_run_at: '2026-01-02T08:10:00.000Z',
  });
});

test('remove returns the removed job and it is gone', async () => {
  const ws = workspace();
  await putCronJob(ws, job('a', '2026-01-01T10:00:00.000Z'));
  assert.equal(await removeCronJob(ws, 'a'), job('a', '2026-01-01T10:00:00.000Z'));
  assert.equal(await listCronJobs(ws), []);
});

test('a recorded run stores the outcome and what follows it', async () => {
  const cases = [
    {
      after: { then: 'reschedule', next_run_at: '2026-01-01T10:10:00.000Z' } as const,
      expected: { ...job('a', '2026-01-01T10:00:00.000Z'), last_run: RUN, next_run_at: '2026-01-01T10:10:00.000Z' },
    },
    {
      after: { then: 'disable' } as const,
      expected: { ...job('a', '2026-01-01T10:00:00.000Z'), last_run: RUN, enabled: false },
    },
    { after: { then: 'remove' } as const, expected: undefined },
  ];
  for (const { after, expected } of cases) {
    const ws = workspace();
    await putCronJob(ws, { ...job('a', '2026-01-01T10:00:00.000Z'), next_run_at: '2026-01-01T10:00:00.000Z' });
    await recordCronRun(ws, 'a', RUN, after);
    assert.equal(await getCronJob(ws, 'a'), expected, after.then);
  }
});

test('a record that is not a job is skipped and reported, the others are listed', async () => {
  const ws = workspace();
  await putCronJob(ws, job('a', '2026-01-01T10:00:00.000Z'));
  const db = new Level<string, unknown>(cronDir(ws), { valueEncoding: 'json' });
  await db.put('job:broken', { id: 'broken', schedule: { kind: 'yearly' } });
  await db.close();
  const skipped: SkippedCronRecord[] = [];
  assert.equal(await listCronJobs(ws, { onSkipped: (record) => skipped.push(record) }), [
    job('a', '2026-01-01T10:00:00.000Z'),
  ]);
  assert.equal(
    skipped.map((s) => s.key),
    ['job:broken'],
  );
});

test('many operations at once in one process all land', async () => {
  const ws = workspace();
  const ids = Array.from({ length: 12 }, (_, i) => `j${String(i).padStart(2, '0')}`);
  await Promise.all(ids.map((id) => putCronJob(ws, job(id, '2026-01-01T10:00:00.000Z'))));
  assert.equal(
    (await listCronJobs(ws)).map((j) => j.id),
    ids,
  );
});

test('an operation waits while another holder keeps the database open, then succeeds', async () => {
  const ws = workspace();
  await putCronJob(ws, job('a', '2026-01-01T10:00:00.000Z'));
  const holder = new Level<string, unknown>(cronDir(ws), { valueEncoding: 'json' });
  await holder.open();
  let locked!: () => void;
  const waits = new Promise<void>((resolve) => (locked = resolve));
  const listing = listCronJobs(ws, { onLocked: () => locked() });
  await waits;
  await holder.close();
  assert.equal(
    (await listing).map((j) => j.id),
    ['a'],
  );
});

test.run();
