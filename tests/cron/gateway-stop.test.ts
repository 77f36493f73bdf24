import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Level } from 'level';
import { Gateway } from '../../actors/gateway/gateway.js';
import { loadConfig } from '../../store/config/index.js';
import { cronDir, listCronJobs, putCronJob } from '../../store/cron-db.js';
import { openGatewayLogs, type GatewayLogs } from '../../store/logs/logger.js';
import { eventually } from '../support/eventually.js';
import { freePort } from '../support/telegram-emulator.js';
import { tempHome, type TempHome } from '../support/temp-home.js';
import { deliverJob } from './cron-harness.js';

/** A gateway whose one cron job, due at once, runs a command that lasts until it is stopped. */
async function gatewayRunningCommand(home: TempHome): Promise<{ gateway: Gateway; logs: GatewayLogs }> {
  const config = { version: 2, gateway: { port: await freePort(), log_level: 'info' }, heartbeat: { enabled: false } };
  writeFileSync(join(home.home, 'config.json'), JSON.stringify(config));
  const past = new Date(Date.now() - 60_000).toISOString();
  await putCronJob(home.workspace, {
    ...deliverJob('long', { kind: 'at', at: past }),
    job: { kind: 'command', command: 'touch started && sleep 30' },
  });
  const loaded = loadConfig({ env: home.env });
  const logs = openGatewayLogs(loaded);
  const gateway = await Gateway.start({ loaded, env: home.env, logs });
  assert.is(await eventually(() => existsSync(join(home.workspace, 'started')), true), true);
  return { gateway, logs };
}

/** The gateway log's last lines without their time, each cut before its `detail=`. */
function lastLines(home: TempHome, count: number): string[] {
  const lines = readFileSync(join(home.home, 'logs', 'gateway.log'), 'utf8')
    .trimEnd()
    .split('\n');
  return lines.slice(-count).map((line) => line.replace(/^\S+ /, '').split(' detail=')[0]!);
}

test('a stop ends a cron command in flight and returns once its run is recorded and logged', async () => {
  const home = tempHome();
  const { gateway, logs } = await gatewayRunningCommand(home);
  await gateway.stop();
  logs.close();
  const [job] = await listCronJobs(home.workspace);
  assert.equal(
    [job?.enabled, job?.last_run?.outcome, job?.last_run?.detail],
    [false, 'failed', '(no output)\n[exec: stopped because the turn was cancelled]'],
  );
  assert.equal(lastLines(home, 2), ['INFO cron job ran job=long kind=command outcome=failed', 'INFO gateway stopped']);
  home.remove();
});

// The host closes the log files right after the stop and may reopen the workspace: nothing of the gateway's may
// write to them later. Here the test holds the store, so recording the run waits out the store's lock retries
// (about 3 s) and fails.
test('a stop waits for the cron run in flight to finish recording, even when that takes long', async () => {
  const home = tempHome();
  const { gateway, logs } = await gatewayRunningCommand(home);
  const holder = new Level<string, unknown>(cronDir(home.workspace), { valueEncoding: 'json' });
  await holder.open();
  await gateway.stop();
  logs.close();
  await holder.close();
  assert.equal(lastLines(home, 3), [
    'INFO cron job ran job=long kind=command outcome=failed',
    `WARN cron run not recorded job=long reason="the cron database ` +
      `at ${cronDir(home.workspace)} stays locked by another process"`,
    'INFO gateway stopped',
  ]);
  home.remove();
});

test('a job leaves the board saying why: the schedule moved elsewhere, or the gateway stopped', async () => {
  const home = tempHome();
  const config = { version: 2, gateway: { port: await freePort() }, heartbeat: { enabled: false } };
  writeFileSync(join(home.home, 'config.json'), JSON.stringify(config));
  await putCronJob(home.workspace, deliverJob('hourly', { kind: 'every', seconds: 3600 }));
  const loaded = loadConfig({ env: home.env });
  const logs = openGatewayLogs(loaded);
  const gateway = await Gateway.start({ loaded, env: home.env, logs });
  const moves: string[] = [];
  gateway.core.bus.on('actor.transitioned', 'actor.stopped').subscribe((event) => {
    if (event.data.actor !== 'cron:hourly') return;
    moves.push(
      event.type === 'actor.stopped' ? `stopped: ${event.data.reason}` : `${event.data.to} ${event.data.event}`,
    );
  });
  // Once the job is on the board (cron may have read its store before the test listened): stopped and back.
  gateway.setScheduled(false, 'the schedule lease went to node-1');
  gateway.setScheduled(true, 'this member holds the schedule lease');
  await eventually(() => moves.includes('scheduled xstate.init'), true);
  moves.length = 0;
  gateway.setScheduled(false, 'the schedule lease went to node-2');
  gateway.setScheduled(true, 'this member holds the schedule lease');
  await eventually(() => moves.length, 2);
  await gateway.stop();
  logs.close();
  assert.equal(moves, [
    'stopped: the schedule lease went to node-2',
    'scheduled xstate.init',
    'stopped: the gateway is stopping',
  ]);
  home.remove();
});

test.run();
