// Ctrl-C and SIGTERM during a turn of `tern agent` (#35 item 4): the turn is aborted within a second (its tool's
// processes killed), what the model had said is shown as stopped, the exit code is 130 (143 for SIGTERM).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ternOnTerminal, screenLines } from '../support/pty.js';
import { heldReply, logged, requestsReach, runningCli } from '../support/cli-turns.js';
import { killTagged, straysTagged } from '../support/exec-attacks.js';
import { tempHome, type TempHome } from '../support/temp-home.js';
import { writeConfig } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';
import { startVendorServer, type VendorServer } from '../support/vendor-server.js';

const test = suite<{ home: TempHome; vendor: VendorServer }>('tern agent: Ctrl-C and SIGTERM abort the running turn');
test.before.each(async (ctx) => {
  ctx.home = tempHome();
  ctx.vendor = await startVendorServer();
  writeConfig(ctx.home.home, ctx.vendor.url);
});
test.after.each(async (ctx) => {
  await ctx.vendor.close();
  ctx.home.remove();
});

test('Ctrl-C during a model call of -m: turn.aborted at once, [stopped] on stdout, exit 130', async ({
  home,
  vendor,
}) => {
  const held = heldReply();
  vendor.reply(held.reply);
  const cli = runningCli(['agent', '-m', 'tell me a long story'], home.env);
  await held.requested;
  const sentAt = Date.now();
  cli.child.kill('SIGINT');
  const { code } = await cli.ended;
  assert.equal([code, cli.stdout()], [130, '[stopped]\n']);
  const [aborted] = logged(home.env, 'turn.aborted');
  assert.is(aborted?.data.reason, 'interrupted (Ctrl-C in tern agent)');
  // The model never answers: any abort is the signal's. The bound leaves a loaded CI room to schedule the process
  // (the abort itself takes milliseconds); without the signal the turn would wait for the model for good.
  assert.ok(aborted!.at - sentAt < 5000, `turn.aborted came ${aborted!.at - sentAt} ms after the signal`);
});

test(
  'Ctrl-C during a tool call: the command and what it started are killed, ' +
    'and what the model said is shown stopped',
  async ({ home, vendor }) => {
    const tag = '31.4159';
    const call = {
      id: 'c1',
      type: 'function' as const,
      function: { name: 'exec', arguments: JSON.stringify({ command: `sleep ${tag} & sleep ${tag}` }) },
    };
    vendor.reply(completion({ content: 'Let me wait a while.', tool_calls: [call] }, 'tool_calls'));
    const cli = runningCli(['agent', '-m', 'wait'], home.env);
    try {
      const deadline = Date.now() + 30_000;
      while (straysTagged(tag).length < 2 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      assert.is(straysTagged(tag).length, 2, 'both sleeps run');
      cli.child.kill('SIGINT');
      const { code } = await cli.ended;
      assert.equal([code, cli.stdout()], [130, 'Let me wait a while. [stopped]\n']);
      // A killed process leaves /proc a moment after its signal, longer on a loaded machine.
      const gone = Date.now() + 10_000;
      while (straysTagged(tag).length > 0 && Date.now() < gone) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(straysTagged(tag), []);
      assert.equal(logged(home.env, 'turn.aborted').length, 1);
    } finally {
      killTagged(tag);
    }
  },
);

test('SIGTERM aborts a --script turn: exit 143, the script stops there', async ({ home, vendor }) => {
  const script = `${home.home}/turns.yaml`;
  await import('node:fs').then(({ writeFileSync }) =>
    writeFileSync(script, 'turns:\n  - user: "first"\n  - user: "second"\n'),
  );
  const held = heldReply();
  vendor.reply(held.reply);
  const cli = runningCli(['agent', '--script', script], home.env);
  await held.requested;
  cli.child.kill('SIGTERM');
  const { code } = await cli.ended;
  assert.equal([code, cli.stdout()], [143, '> first\n[stopped]\n']);
  assert.is(logged(home.env, 'turn.aborted')[0]?.data.reason, 'tern agent was terminated (SIGTERM)');
  assert.is(vendor.requests.length, 1);
});

test('a second Ctrl-C ends the process at once, with exit code 130', async ({ home, vendor }) => {
  const held = heldReply();
  vendor.reply(held.reply);
  const cli = runningCli(['agent', '-m', 'hi'], home.env);
  await held.requested;
  cli.child.kill('SIGINT');
  cli.child.kill('SIGINT');
  const { code, signal } = await cli.ended;
  assert.equal([code, signal], [130, null]);
});

test('Ctrl-C in the chat on a terminal aborts the turn, shows it stopped and ends with 130', async ({
  home,
  vendor,
}) => {
  const held = heldReply();
  vendor.reply(held.reply);
  // The spinner shows before the request leaves: Ctrl-C is typed once the model has the request.
  const run = ternOnTerminal(['agent'], home.env, [
    'hi\r',
    { after: 'waiting for fast', type: '\x03', once: held.requested },
  ]);
  await requestsReach(vendor, 1);
  const { code, raw } = await run;
  assert.is(code, 130, raw);
  assert.ok(screenLines(raw).includes('tern> [stopped]'), raw);
  assert.is(logged(home.env, 'turn.aborted').length, 1);
});

test.run();
