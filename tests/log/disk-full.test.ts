import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LogFailingError, type Envelope, type LogHealth } from '../../bus/index.js';
import { loadConfig } from '../../store/config/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { openGatewayLogs } from '../../store/logs/logger.js';
import { quietValue } from '../support/quiet.js';
import { mountSmallDisk, type SmallDisk } from '../support/small-disk.js';
import { tempHome, type TempHome } from '../support/temp-home.js';

interface Context {
  home?: TempHome;
  disk?: SmallDisk;
}

const test = suite<Context>('the event log and the panic log on a full disk');

test.before.each((context) => {
  context.home = tempHome();
  context.disk = mountSmallDisk(context.home.home, 8);
});

test.after.each((context) => {
  context.disk?.unmount();
  context.home?.remove();
});

const cleared = (n: number) => ({
  type: 'session.cleared' as const,
  session: `sk_v1_s${n % 3}`,
  data: { session_key: `k${n}` },
});

test('a write failing for lack of space keeps its events, written once space is back', async ({ home, disk }) => {
  const log = EventLog.open(home!.sessions);
  const changes: LogHealth[] = [];
  log.onHealth((health) => changes.push(health));
  for (let n = 1; n <= 50; n++) log.append(cleared(n));
  await log.committed();
  disk!.fill();
  // New record shapes while the disk is full: lmdb saves a shape in the transaction that fails.
  const appended: Envelope[] = [];
  for (let n = 0; n < 400; n++) {
    appended.push(log.append({ type: 'log.failed', data: { code: 'disk_full', reason: `r${n}`.repeat(200) } }));
    await new Promise((resolve) => setImmediate(resolve));
    if (log.health().state === 'failing') break;
  }
  const health = log.health();
  assert.is(health.state, 'failing', 'the disk never refused a write');
  if (health.state !== 'failing') return;
  assert.is(health.code, 'disk_full');
  assert.match(health.reason, new RegExp(`^the disk holding ${home!.sessions} is full`));
  const refused = await log.committed({ failFast: true }).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.instance(refused, LogFailingError);
  let written = false;
  const waiting = log.committed().then(() => (written = true));
  assert.is(await quietValue(() => written, { quietMs: 300 }), false, 'nothing commits while the disk is full');
  disk!.free();
  await waiting;
  // A shape first written after the outage must not take the place of the one the failed writes introduced.
  log.append({ type: 'log.recovered', data: { failed_ms: 7 } });
  await log.committed();
  log.append({ type: 'config.rejected', data: { problems: ['a new shape after the outage'] } });
  await log.committed();
  assert.equal(log.health(), { state: 'ok' });
  assert.equal(
    changes.map((c) => c.state),
    ['failing', 'ok'],
  );
  const last = log.lastSeq;
  log.close();
  const reader = EventLog.open(home!.sessions, { readOnly: true });
  try {
    const events = reader.read({ limit: Infinity });
    assert.equal(
      events.map((e) => e.seq),
      Array.from({ length: last }, (_, i) => i + 1),
    );
    for (const sent of appended) assert.equal(reader.get(sent.seq), sent);
    assert.equal(events.at(-1)?.data, { problems: ['a new shape after the outage'] });
    assert.equal(events.at(-2)?.data, { failed_ms: 7 });
  } finally {
    reader.close();
  }
});

test('the panic log has room for its line on a full disk', ({ home, disk }) => {
  mkdirSync(home!.home, { recursive: true });
  writeFileSync(join(home!.home, 'config.json'), JSON.stringify({ version: 2 }));
  const logs = openGatewayLogs(loadConfig({ env: home!.env }));
  disk!.fill();
  logs.gateway.error('a line the full disk drops, without throwing');
  logs.panic(new Error('ENOSPC: no space left on device, write (the cause)'));
  logs.close();
  const panic = readFileSync(join(home!.home, 'logs', 'panic.log'), 'utf8');
  assert.match(panic, /PANIC Error: ENOSPC: no space left on device, write \(the cause\)/);
});

test('a link planted at the panic reserve is not followed: its target keeps its bytes', ({ home }) => {
  mkdirSync(join(home!.home, 'logs'), { recursive: true, mode: 0o700 });
  writeFileSync(join(home!.home, 'config.json'), JSON.stringify({ version: 2 }));
  const victim = join(home!.home, 'victim.txt');
  writeFileSync(victim, "the owner's file\n");
  symlinkSync(victim, join(home!.home, 'logs', 'panic.reserve'));
  const logs = openGatewayLogs(loadConfig({ env: home!.env }));
  logs.panic(new Error('the cause'));
  logs.close();
  assert.is(readFileSync(victim, 'utf8'), "the owner's file\n");
  assert.match(readFileSync(join(home!.home, 'logs', 'panic.log'), 'utf8'), /PANIC Error: the cause/);
});

test.run();
