import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CronToolOptions } from '../../adapters/tools/cron/cron-tool.js';
import { getCronJob, listCronJobs, putCronJob } from '../../store/cron-db.js';
import { toolsFixture, type ToolsFixture } from '../support/tools-fixture.js';
import { deliverJob } from './cron-harness.js';

const NOW = new Date('2026-03-01T10:00:00.000Z');
const TELEGRAM = { channel: 'telegram', chat: 'direct:42', remote: true };

function fixture(cron: Partial<CronToolOptions> = {}, exec: { enabled?: boolean } = {}): ToolsFixture {
  return toolsFixture(() => ({
    cron: { enabled: true, allowCommand: true, commandAllowedRemotes: [], now: () => NOW, ...cron },
    exec,
  }));
}

const tool = suite<{ f: ToolsFixture }>('cron tool');
tool.after.each(({ f }) => f.close());

const idOf = (content: string) => /\(id: ([0-9a-f]{8})\)/.exec(content)?.[1] ?? '';

tool('it is registered only when tools.cron.enabled', (context) => {
  context.f = fixture({ enabled: false });
  assert.is(context.f.registry.has('cron'), false);
  const on = fixture();
  assert.is(on.registry.has('cron'), true);
  on.close();
});

tool('add schedules a reminder for the chat it was asked from; list shows it', async (context) => {
  const f = (context.f = fixture());
  const added = await f.call('cron', { action: 'add', message: 'stand up', at_seconds: 600 }, TELEGRAM);
  const id = idOf(added.content);
  assert.equal(added, {
    ok: true,
    content:
      `Cron job added: stand up (id: ${id}), once at 2026-03-01T10:10:00.000Z, ` +
      `deliver to telegram/direct:42; next run 2026-03-01T10:10:00.000Z`,
  });
  assert.equal((await getCronJob(f.workspace, id))?.created_by, { channel: 'telegram', chat: 'direct:42' });
  assert.equal(await f.call('cron', { action: 'list' }, TELEGRAM), {
    ok: true,
    content:
      `Scheduled jobs:\n` +
      `- stand up (id: ${id}, once at 2026-03-01T10:10:00.000Z, deliver to telegram/direct:42, ` +
      `next run 2026-03-01T10:10:00.000Z)`,
  });
});

tool('each schedule argument makes its schedule; unused ones sent as 0 or "" are ignored', async (context) => {
  const f = (context.f = fixture());
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ every_seconds: 3600, at_seconds: 0, cron_expr: '' }, 'every 1h'],
    [{ cron_expr: '0 9 * * 1-5', tz: 'Europe/Paris' }, 'cron "0 9 * * 1-5" Europe/Paris'],
    [{ at_seconds: 90, deliver: false }, 'once at 2026-03-01T10:01:30.000Z, agent turn (main) for telegram/direct:42'],
  ];
  for (const [args, expected] of cases) {
    const result = await f.call('cron', { action: 'add', message: 'news', ...args }, TELEGRAM);
    assert.ok(result.ok && result.content.includes(expected), `${JSON.stringify(args)} → ${result.content}`);
  }
});

tool('bad add arguments come back to the model as tool errors', async (context) => {
  const f = (context.f = fixture());
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ message: 'x' }, 'add needs exactly one of at_seconds, every_seconds, cron_expr (got 0)'],
    [
      { message: 'x', at_seconds: 60, every_seconds: 60 },
      'add needs exactly one of at_seconds, every_seconds, cron_expr (got 2)',
    ],
    [{ every_seconds: 60 }, 'add needs message (or command)'],
    [
      { message: 'x', cron_expr: '0 9 * *' },
      'add: schedule.expr: cron expression "0 9 * *" has 4 fields; ' +
        'it needs 5 (allowed: minute hour day-of-month month day-of-week, each *, a value, a list a,b, ' +
        'a range a-b or a step */n, a-b/n or a/n; or @hourly, @daily, @weekly, @monthly, @yearly)',
    ],
    [
      { message: 'x', cron_expr: '* * * * *', tz: 'Nowhere/City' },
      'add: schedule.tz: tz "Nowhere/City" is not a known IANA time zone (for example UTC, ' +
        'Europe/Paris, America/New_York)',
    ],
    [{ message: 'x', every_seconds: -5 }, 'add: schedule.seconds: Too small: expected number to be >0'],
    [{ message: 'x', at_seconds: -5 }, 'add: 2026-03-01T09:59:55.000Z is not after 2026-03-01T10:00:00.000Z'],
  ];
  for (const [args, message] of cases)
    assert.equal(
      await f.call('cron', { action: 'add', ...args }, TELEGRAM),
      { ok: false, content: message },
      JSON.stringify(args),
    );
  assert.equal(await f.call('cron', { action: 'pause' }, TELEGRAM), {
    ok: false,
    content:
      'invalid arguments for cron: action: Invalid option: expected one of "add"|"list"|"remove"|"enable"|"disable"',
  });
  assert.equal(await listCronJobs(f.workspace), []);
});

tool('a reminder from the terminal has no chat to go to', async (context) => {
  const f = (context.f = fixture());
  assert.equal(await f.call('cron', { action: 'add', message: 'x', every_seconds: 60 }), {
    ok: false,
    content:
      'a reminder needs a chat to go to, and the "cli" channel has none; ' +
      'schedule it from a chat, or with `tern cron add --channel --chat`',
  });
});

tool('command jobs pass the gates of tools.cron and tools.exec', async (context) => {
  const refusedRemote =
    'command jobs from telegram:direct:42 are refused: ' +
    'it is not listed in tools.cron.command_allowed_remotes (entries: <channel>, <channel>:<chat_id>, *)';
  const needsConfirm =
    'command jobs need command_confirm: true (tools.cron.allow_command is false); ask the user to confirm first';
  const cases: Array<
    [
      string,
      Partial<CronToolOptions>,
      { enabled?: boolean },
      Record<string, unknown>,
      Record<string, unknown>,
      string | true,
    ]
  > = [
    [
      'exec disabled',
      {},
      { enabled: false },
      {},
      {},
      'command jobs need tools.exec.enabled: true (the exec tool is off, so they would never run)',
    ],
    ['local caller', {}, {}, {}, {}, true],
    ['remote, not listed', {}, {}, TELEGRAM, {}, refusedRemote],
    ['remote, channel listed', { commandAllowedRemotes: ['telegram'] }, {}, TELEGRAM, {}, true],
    ['remote, chat listed without prefix', { commandAllowedRemotes: ['telegram:42'] }, {}, TELEGRAM, {}, true],
    ['remote, other chat listed', { commandAllowedRemotes: ['telegram:43'] }, {}, TELEGRAM, {}, refusedRemote],
    ['remote, *', { commandAllowedRemotes: ['*'] }, {}, TELEGRAM, {}, true],
    ['allow_command false, no confirm', { allowCommand: false }, {}, {}, {}, needsConfirm],
    ['allow_command false, confirmed', { allowCommand: false }, {}, {}, { command_confirm: true }, true],
    [
      'remote listed, allow_command false, no confirm',
      { allowCommand: false, commandAllowedRemotes: ['*'] },
      {},
      TELEGRAM,
      {},
      needsConfirm,
    ],
  ];
  for (const [name, cron, exec, caller, extra, expected] of cases) {
    const f = (context.f = fixture(cron, exec));
    const result = await f.call('cron', { action: 'add', command: 'df -h', every_seconds: 3600, ...extra }, caller);
    if (expected === true)
      assert.ok(result.ok && result.content.startsWith('Cron job added: df -h'), `${name}: ${result.content}`);
    else assert.equal(result, { ok: false, content: expected }, name);
    f.close();
  }
  context.f = fixture();
});

tool('a dangerous command is refused by the exec checks when it is scheduled', async (context) => {
  const f = (context.f = fixture());
  assert.equal(await f.call('cron', { action: 'add', command: 'rm -rf /', every_seconds: 60 }), {
    ok: false,
    content: 'the command is refused: Command blocked by safety guard (dangerous pattern detected)',
  });
});

tool('a remote chat sees and changes only its own jobs; the terminal sees all', async (context) => {
  const f = (context.f = fixture());
  await putCronJob(
    f.workspace,
    deliverJob('aaaa0001', { kind: 'every', seconds: 60 }, { created_by: { channel: 'telegram', chat: 'direct:42' } }),
  );
  await putCronJob(
    f.workspace,
    deliverJob('bbbb0002', { kind: 'every', seconds: 60 }, { created_by: { channel: 'telegram', chat: 'direct:99' } }),
  );
  const listed = await f.call('cron', { action: 'list' }, TELEGRAM);
  assert.equal(listed.content.split('\n').length, 2);
  assert.ok(listed.content.includes('aaaa0001'));
  assert.equal(await f.call('cron', { action: 'remove', job_id: 'bbbb0002' }, TELEGRAM), {
    ok: false,
    content: 'job bbbb0002 not found (see action list)',
  });
  assert.equal(await f.call('cron', { action: 'disable', job_id: 'aaaa0001' }, TELEGRAM), {
    ok: true,
    content: 'Cron job disabled: aaaa0001 (id: aaaa0001)',
  });
  assert.equal(await f.call('cron', { action: 'enable', job_id: 'aaaa0001' }, TELEGRAM), {
    ok: true,
    content: 'Cron job enabled: aaaa0001 (id: aaaa0001)',
  });
  assert.equal((await getCronJob(f.workspace, 'aaaa0001'))?.next_run_at, '2026-03-01T10:01:00.000Z');
  assert.equal(await f.call('cron', { action: 'remove', job_id: 'bbbb0002' }), {
    ok: true,
    content: 'Cron job removed: bbbb0002 (id: bbbb0002)',
  });
  assert.equal(await f.call('cron', { action: 'remove' }), {
    ok: false,
    content: 'remove needs job_id (see action list)',
  });
  assert.equal(
    (await listCronJobs(f.workspace)).map((j) => j.id),
    ['aaaa0001'],
  );
});

tool.run();
