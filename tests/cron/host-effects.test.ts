import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cronCommandRunner, cronTurnRunner } from '../../actors/cron/host-effects.js';
import { eventually } from '../support/eventually.js';
import { straysTagged } from '../support/exec-attacks.js';
import { startTurnFixture, type TurnFixture } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';

const running = () => new AbortController().signal;

const effects = suite<{ fixture: TurnFixture }>('cron effects on a real runtime');

effects.before.each(async (context) => {
  context.fixture = await startTurnFixture();
});
effects.after.each(async ({ fixture }) => fixture.close());

effects('an agent turn runs in the session of the job, on the channel it reports to', async ({ fixture }) => {
  fixture.vendor.reply(completion({ content: 'Three new invoices.' }));
  const run = cronTurnRunner(async () => fixture.runtime);
  const reply = await run({
    job: 'ab12cd34',
    run: 'cron_ab12cd34_1',
    channel: 'telegram',
    chat: 'direct:42',
    message: 'check the invoices',
    remote: true,
  });
  assert.equal(reply, { ok: true, text: 'Three new invoices.' });
  const started = fixture.events.find((e) => e.type === 'turn.started');
  const seen =
    started?.type === 'turn.started' ? [started.data.channel, started.data.chat, started.data.session_key] : [];
  assert.equal(seen, ['telegram', 'direct:42', 'v=1|agent=main|channel=cron|account=default|chat=cron:ab12cd34']);
});

effects('a command runs through the exec tool in the workspace', async ({ fixture }) => {
  writeFileSync(join(fixture.home.workspace, 'note.txt'), 'hello from the workspace\n');
  const run = cronCommandRunner(fixture.runtime, fixture.home.env, () => {});
  assert.equal(await run('cat note.txt', 60_000, running()), { ok: true, content: 'hello from the workspace\n' });
});

effects(
  'a command runs inside the same sandbox as exec: ' +
    'files beside the workspace are not there, and a detached child ends with the job',
  async ({ fixture }) => {
    const beside = join(fixture.home.home, 'beside.txt');
    writeFileSync(beside, 'BESIDE-SECRET\n');
    const run = cronCommandRunner(fixture.runtime, fixture.home.env, () => {});
    const encoded = Buffer.from(beside).toString('base64');
    const command = `cat "$(echo ${encoded} | base64 -d)"; setsid sleep 20.42441 & echo started`;
    assert.equal(await run(command, 60_000, running()), {
      ok: true,
      content: `cat: ${beside}: No such file or directory\nstarted\n`,
    });
    assert.is(await eventually(() => straysTagged('20.42441').length, 0, 1000), 0);
  },
);

effects('a dangerous command is refused by the exec checks and logged', async ({ fixture }) => {
  const logged: string[] = [];
  const run = cronCommandRunner(fixture.runtime, fixture.home.env, (line) => logged.push(line));
  assert.equal(await run('rm -rf /', undefined, running()), {
    ok: false,
    content: 'Command blocked by safety guard (dangerous pattern detected)',
  });
  assert.is(logged.length, 1);
});

effects('a command that outlives its timeout is stopped', async ({ fixture }) => {
  const run = cronCommandRunner(fixture.runtime, fixture.home.env, () => {});
  assert.equal(await run('sleep 5', 200, running()), {
    ok: false,
    content: '(no output)\n[exec: stopped after 0.2 s timeout]',
  });
});

effects('a command in flight is ended when its signal aborts (the gateway stops)', async ({ fixture }) => {
  const run = cronCommandRunner(fixture.runtime, fixture.home.env, () => {});
  const stop = new AbortController();
  const result = run('touch started && sleep 30', 60_000, stop.signal);
  assert.is(await eventually(() => existsSync(join(fixture.home.workspace, 'started')), true), true);
  stop.abort();
  assert.equal(await result, { ok: false, content: '(no output)\n[exec: stopped because the turn was cancelled]' });
});

effects('a command asked for after the stop does not start', async ({ fixture }) => {
  const run = cronCommandRunner(fixture.runtime, fixture.home.env, () => {});
  const stop = new AbortController();
  stop.abort();
  const refused = await run('touch started', 60_000, stop.signal).then(
    () => undefined,
    (error: Error) => error.name,
  );
  assert.is(refused, 'AbortError');
  assert.is(existsSync(join(fixture.home.workspace, 'started')), false);
});

effects.run();
