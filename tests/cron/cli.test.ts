import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { getCronJob, listCronJobs } from '../../store/cron-db.js';
import { runCli } from '../support/cli.js';
import { tempHome, type TempHome } from '../support/temp-home.js';

const cli = suite<{ home: TempHome }>('tern cron');

cli.before.each((context) => {
  context.home = tempHome();
});
cli.after.each(({ home }) => home.remove());

const AT = '2099-01-01T09:00:00.000Z';

cli('add a one-shot reminder, list it, disable, enable and remove it', async ({ home }) => {
  const added = runCli(
    ['cron', 'add', '--at', AT, '--deliver', 'stand up', '--channel', 'telegram', '--chat', 'direct:42', '--json'],
    home.env,
  );
  assert.is(added.code, 0, added.stderr);
  const { job } = JSON.parse(added.stdout) as { job: { id: string } };
  assert.equal(await getCronJob(home.workspace, job.id), {
    id: job.id,
    name: 'stand up',
    schedule: { kind: 'at', at: AT },
    job: { kind: 'deliver', channel: 'telegram', chat: 'direct:42', text: 'stand up' },
    enabled: true,
    created_at: (await getCronJob(home.workspace, job.id))!.created_at,
    created_by: { channel: 'cli' },
    next_run_at: AT,
  });
  const listed = runCli(['cron', 'list'], home.env);
  assert.equal(listed.stdout.split('\n'), [
    'ID        NAME      SCHEDULE                          ' +
      'TASK                           ENABLED  NEXT RUN                  LAST RUN',
    `${job.id}  stand up  once at ${AT}  deliver to telegram/direct:42  yes      ${AT}  -`,
    '',
  ]);
  assert.equal(runCli(['cron', 'disable', job.id], home.env).stdout, `disabled cron job ${job.id} (stand up)\n`);
  assert.is((await getCronJob(home.workspace, job.id))?.enabled, false);
  assert.equal(
    runCli(['cron', 'enable', job.id], home.env).stdout,
    `enabled cron job ${job.id} (stand up); next run ${AT}\n`,
  );
  assert.equal(runCli(['cron', 'remove', job.id], home.env).stdout, `removed cron job ${job.id} (stand up)\n`);
  assert.equal(runCli(['cron', 'list'], home.env).stdout, 'no scheduled jobs\n');
});

cli('each schedule and task flag makes the job it names', async ({ home }) => {
  const cases: Array<[string[], Record<string, unknown>, Record<string, unknown>]> = [
    [
      ['--every', '1h30m', '--message', 'news?', '--agent', 'main'],
      { kind: 'every', seconds: 5400 },
      { kind: 'agent_turn', agent: 'main', channel: 'telegram', chat: 'direct:42', message: 'news?' },
    ],
    [
      ['--every', '90', '--deliver', 'hi'],
      { kind: 'every', seconds: 90 },
      { kind: 'deliver', channel: 'telegram', chat: 'direct:42', text: 'hi' },
    ],
    [
      ['--cron', '0 9 * * 1-5', '--tz', 'Europe/Paris', '--deliver', 'hi'],
      { kind: 'cron', expr: '0 9 * * 1-5', tz: 'Europe/Paris' },
      { kind: 'deliver', channel: 'telegram', chat: 'direct:42', text: 'hi' },
    ],
  ];
  for (const [flags, schedule, task] of cases) {
    const result = runCli(
      ['cron', 'add', ...flags, '--channel', 'telegram', '--chat', 'direct:42', '--json'],
      home.env,
    );
    assert.is(result.code, 0, result.stderr);
    const { job } = JSON.parse(result.stdout) as { job: { schedule: unknown; job: unknown } };
    assert.equal([job.schedule, job.job], [schedule, task]);
  }
  const command = runCli(['cron', 'add', '--every', '10m', '--command', 'df -h', '--json'], home.env);
  assert.equal((JSON.parse(command.stdout) as { job: { job: unknown } }).job.job, {
    kind: 'command',
    command: 'df -h',
  });
  const every = (await listCronJobs(home.workspace)).find(
    (j) => j.schedule.kind === 'every' && j.schedule.seconds === 90,
  )!;
  assert.is(Date.parse(every.next_run_at!) - Date.parse(every.created_at), 90_000);
});

cli('bad input is refused with the flag and what it allows, and nothing is stored', async ({ home }) => {
  const to = ['--channel', 'telegram', '--chat', 'direct:42'];
  const cases: Array<[string[], number, string]> = [
    [
      ['cron', 'add', '--deliver', 'hi', ...to],
      2,
      'tern: wrong usage (cron add needs a schedule: one of --every, --at, --cron). Run `tern cron --help`.',
    ],
    [
      ['cron', 'add', '--every', '1m', '--at', AT, '--deliver', 'hi', ...to],
      2,
      'tern: wrong usage (--every and --at cannot be combined (allowed: ' +
        'one of --every, --at, --cron)). Run `tern cron --help`.',
    ],
    [
      ['cron', 'add', '--every', '1m', ...to],
      2,
      'tern: wrong usage (cron add needs a task: one of --message, --deliver, --command). Run `tern cron --help`.',
    ],
    [
      ['cron', 'add', '--every', '5x', '--deliver', 'hi', ...to],
      2,
      'tern: wrong usage (--every "5x" is not a duration (allowed: ' +
        'seconds such as 90, or 30s, 10m, 2h, 1d, 1h30m)). Run `tern cron --help`.',
    ],
    [
      ['cron', 'add', '--every', '0s', '--deliver', 'hi', ...to],
      2,
      'tern: wrong usage (--every "0s" is not a duration (allowed: ' +
        'seconds such as 90, or 30s, 10m, 2h, 1d, 1h30m)). Run `tern cron --help`.',
    ],
    [
      ['cron', 'add', '--at', 'tomorrow', '--deliver', 'hi', ...to],
      2,
      'tern: wrong usage (--at "tomorrow" is not an ISO time (allowed: ' +
        'e.g. 2026-03-01T09:00:00Z or 2026-03-01T10:00:00+01:00)). Run `tern cron --help`.',
    ],
    [
      ['cron', 'add', '--at', '2001-01-01T00:00:00Z', '--deliver', 'hi', ...to],
      1,
      'tern: the job would never run (2001-01-01T00:00:00Z is not after ',
    ],
    [
      ['cron', 'add', '--cron', '0 25 * * *', '--deliver', 'hi', ...to],
      2,
      'tern: wrong usage (--cron: cron expression "0 25 * * *" is not valid: ' +
        'Invalid value for hour: 25 (allowed: minute hour day-of-month month day-of-week, ' +
        'each *, a value, a list a,b, a range a-b or a step */n, a-b/n or a/n; ' +
        'or @hourly, @daily, @weekly, @monthly, @yearly)). Run `tern cron --help`.',
    ],
    [
      ['cron', 'add', '--cron', '0 9 * * *', '--tz', 'Mars/Base', '--deliver', 'hi', ...to],
      2,
      'tern: wrong usage (--tz: tz "Mars/Base" is not a known IANA time zone (for example UTC, ' +
        'Europe/Paris, America/New_York)). Run `tern cron --help`.',
    ],
    [
      ['cron', 'add', '--every', '1m', '--tz', 'UTC', '--deliver', 'hi', ...to],
      2,
      'tern: wrong usage (--tz goes with --cron only). Run `tern cron --help`.',
    ],
    [
      ['cron', 'add', '--every', '1m', '--deliver', 'hi'],
      2,
      'tern: wrong usage (--deliver needs --channel and --chat (where the result goes)). Run `tern cron --help`.',
    ],
    [
      ['cron', 'add', '--every', '1m', '--command', 'ls', '--chat', 'direct:42'],
      2,
      'tern: wrong usage (--command needs both --channel and --chat (where the result goes)). Run `tern cron --help`.',
    ],
    [
      ['cron', 'add', '--every', '1m', '--deliver', 'hi', '--agent', 'main', ...to],
      2,
      'tern: wrong usage (--agent goes with --message only). Run `tern cron --help`.',
    ],
    [
      ['cron', 'remove'],
      2,
      'tern: wrong usage (cron remove needs a job id). Run `tern cron remove ID`; `tern cron list` shows the ids.',
    ],
    [
      ['cron', 'enable', 'nope'],
      1,
      'tern: no cron job with id "nope" (ids: none). Run `tern cron list` to see the jobs.',
    ],
  ];
  for (const [args, code, message] of cases) {
    const result = runCli(args, home.env);
    assert.is(result.code, code, args.join(' '));
    assert.ok(result.stderr.startsWith(message), `${args.join(' ')}: ${result.stderr}`);
  }
  assert.equal(await listCronJobs(home.workspace), []);
});

cli('--json errors are one JSON line with the code', ({ home }) => {
  const result = runCli(['cron', 'disable', 'nope', '--json'], home.env);
  assert.is(result.code, 1);
  assert.equal(JSON.parse(result.stdout), {
    ok: false,
    error: {
      code: 'cron_job_unknown',
      message: 'no cron job with id "nope" (ids: none). Run `tern cron list` to see the jobs.',
    },
  });
});

cli('a command job cannot be added while tools.exec.enabled is false', async ({ home }) => {
  writeFileSync(join(home.home, 'config.json'), JSON.stringify({ version: 2, tools: { exec: { enabled: false } } }));
  const result = runCli(['cron', 'add', '--every', '1h', '--command', 'df -h'], home.env);
  assert.is(result.code, 1);
  assert.is(
    result.stderr,
    'tern: a command job cannot be added (tools.exec.enabled is false, ' +
      'so command jobs never run). Set tools.exec.enabled to true in the config first.\n',
  );
  assert.equal(await listCronJobs(home.workspace), []);
});

cli.run();
