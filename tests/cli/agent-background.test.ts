// Work a one-shot `tern agent` leaves running (#35 item 7): spawned subagent tasks are waited for (their results
// printed, Ctrl-C cancels them) and an evolution draft is finished or recorded as failed before the process ends.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { heldReply, logged, runningCli } from '../support/cli-turns.js';
import { tempHome, type TempHome } from '../support/temp-home.js';
import { writeConfig } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';
import {
  startVendorServer,
  type RecordedRequest,
  type ScriptedReply,
  type VendorServer,
} from '../support/vendor-server.js';

const test = suite<{ home: TempHome; vendor: VendorServer }>('tern agent: background work is finished, not cut off');
test.before.each(async (ctx) => {
  ctx.home = tempHome();
  ctx.vendor = await startVendorServer();
  writeConfig(ctx.home.home, ctx.vendor.url);
});
test.after.each(async (ctx) => {
  await ctx.vendor.close();
  ctx.home.remove();
});

const spawnCall = {
  id: 'c1',
  type: 'function' as const,
  function: { name: 'spawn', arguments: JSON.stringify({ task: 'count to three', label: 'counter' }) },
};

/**
 * The parent asks for a spawn, then says it started it; the subagent's own request (its message opens "You are a
 * subagent") gets `child`. The two turns run at once, so each request is answered by what it is.
 */
function spawning(vendor: VendorServer, child: (request: RecordedRequest) => ScriptedReply): void {
  const answer = (request: RecordedRequest): ScriptedReply => {
    const text = request.body.toString();
    if (text.includes('You are a subagent')) return child(request);
    return text.includes('"role":"tool"')
      ? completion({ content: 'Started it.' })
      : completion({ tool_calls: [spawnCall] }, 'tool_calls');
  };
  vendor.reply(answer, answer, answer);
}

test('-m waits for the task it spawned and prints its result', async ({ home, vendor }) => {
  spawning(vendor, () => completion({ content: 'one, two, three' }));
  const cli = runningCli(['agent', '-m', 'count to three in the background'], home.env);
  assert.is((await cli.ended).code, 0, cli.stderr());
  assert.is(cli.stdout(), 'Started it.\nSubagent task "counter" finished:\n\none, two, three\n');
  assert.equal(
    logged(home.env, 'subagent.ended').map((e) => e.data.status),
    ['completed'],
  );
});

test('Ctrl-C while waiting for a task cancels it (recorded why) and exits 130', async ({ home, vendor }) => {
  const held = heldReply();
  spawning(vendor, held.reply);
  const cli = runningCli(['agent', '-m', 'count to three in the background'], home.env);
  await cli.shows('tern: waiting for 1 background task ("counter"); Ctrl-C cancels\n', 'stderr');
  await held.requested;
  cli.child.kill('SIGINT');
  assert.is((await cli.ended).code, 130);
  assert.match(cli.stderr(), 'tern: subagent task "counter" was canceled: interrupted (Ctrl-C in tern agent)\n');
  const [ended] = logged(home.env, 'subagent.ended');
  assert.equal([ended?.data.status, ended?.data.reason], ['canceled', 'interrupted (Ctrl-C in tern agent)']);
});

const NOTES_SKILL =
  '---\nname: Read Plans\ndescription: Read the plan.\n---\n# Read plans\n\nCall todo with action read.';

/** A config that drafts a skill after the first turn that used a tool; the turn reads its todo plan. */
function drafting(home: TempHome, vendor: VendorServer): void {
  writeConfig(home.home, vendor.url, {
    blocks: { evolution: { enabled: true, mode: 'draft', min_task_count: 1, min_success_ratio: 0.5 } },
  });
  const call = { id: 'c1', type: 'function' as const, function: { name: 'todo', arguments: '{"action":"read"}' } };
  vendor.reply(completion({ tool_calls: [call] }, 'tool_calls'), completion({ content: 'Nothing planned.' }));
}

test('an evolution draft started by the turn is finished before -m exits', async ({ home, vendor }) => {
  drafting(home, vendor);
  const held = heldReply();
  vendor.reply(held.reply);
  const cli = runningCli(['agent', '-m', 'read my plan'], home.env);
  await held.requested;
  held.release(NOTES_SKILL);
  assert.is((await cli.ended).code, 0, cli.stderr());
  assert.equal(
    logged(home.env, 'skill.drafted').map((e) => e.data.name),
    ['read-plans'],
  );
});

test('Ctrl-C while a draft is being written records it as skill.draft_failed', async ({ home, vendor }) => {
  drafting(home, vendor);
  const held = heldReply();
  vendor.reply(held.reply);
  const cli = runningCli(['agent', '-m', 'read my plan'], home.env);
  await held.requested;
  await cli.shows('tern: finishing a skill draft', 'stderr');
  cli.child.kill('SIGINT');
  assert.is((await cli.ended).code, 130);
  assert.equal(
    logged(home.env, 'skill.draft_failed').map((e) => e.data.reason),
    ['the process stopped before the model finished the draft'],
  );
});

test.run();
