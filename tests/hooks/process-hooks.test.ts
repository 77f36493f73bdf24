import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rerunTurn } from '../../actors/replay.js';
import type { Envelope } from '../../bus/index.js';
import { runCli } from '../support/cli.js';
import { passes } from '../support/eventually.js';
import { writeHookScript } from '../support/hook-scripts.js';
import { startTurnFixture, type TurnFixture } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';

const toolCall = (id: string, name: string, args: unknown) => ({
  id,
  type: 'function' as const,
  function: { name, arguments: JSON.stringify(args) },
});
const execCall = (id: string, command: string) =>
  completion({ tool_calls: [toolCall(id, 'exec', { command })] }, 'tool_calls');
const turnOf = (reply: { kind: string }) => (reply as unknown as { turn: string }).turn;
const ofTurn = <T extends Envelope['type']>(f: TurnFixture, turn: string, type: T) =>
  f.events.filter((e): e is Envelope<T> => e.turn === turn && e.type === type);
/** The tool message the model was sent back in request `index`. */
const toolMessage = (f: TurnFixture, index: number) =>
  (
    JSON.parse(f.vendor.requests[index]!.body.toString()) as { messages: Array<{ role: string; content: string }> }
  ).messages.at(-1);

interface Context {
  dir: string;
}

const test = suite<Context>('process hooks in real turns');

test.before((context) => {
  context.dir = mkdtempSync(join(tmpdir(), 'tern-hooks-'));
});

test.after((context) => {
  rmSync(context.dir, { recursive: true, force: true });
});

async function withHooks(
  processes: Record<string, unknown>,
  run: (f: TurnFixture) => Promise<void>,
  defaults: Record<string, unknown> = {},
): Promise<void> {
  const f = await startTurnFixture({ blocks: { hooks: { defaults, processes } } });
  try {
    await f.runtime.hooks.ready(AbortSignal.timeout(15_000));
    await run(f);
  } finally {
    await f.close();
  }
}

test('a process hook denies exec of a command with a marker; the model reads the reason, other commands run', async ({
  dir,
}) => {
  const guard = writeHookScript(
    dir,
    'guard',
    `{
    before_tool: (p) => p.tool === 'exec' && String(p.arguments.command).includes('MARKER-42')
      ? { action: 'deny_tool', reason: 'commands with MARKER-42 are not allowed here' }
      : { action: 'continue' },
  }`,
  );
  await withHooks({ guard: { command: [process.execPath, guard], intercept: ['before_tool'] } }, async (f) => {
    f.vendor.reply(execCall('c1', 'echo MARKER-42'), completion({ content: 'It was refused.' }));
    const denied = await f.send('run the marker command');
    assert.equal(toolMessage(f, 1), {
      role: 'tool',
      tool_call_id: 'c1',
      content: 'Tool call denied by hook guard: commands with MARKER-42 are not allowed here',
    });
    assert.equal(
      ofTurn(f, turnOf(denied), 'hook.decided').map((e) => e.data),
      [
        {
          hook: 'guard',
          point: 'before_tool',
          call_id: 'c1',
          action: 'deny_tool',
          reason: 'commands with MARKER-42 are not allowed here',
        },
      ],
    );
    assert.equal(
      ofTurn(f, turnOf(denied), 'tool.completed').map((e) => e.data),
      [
        {
          call_id: 'c1',
          name: 'exec',
          ok: false,
          content: 'Tool call denied by hook guard: commands with MARKER-42 are not allowed here',
        },
      ],
    );
    f.vendor.reply(execCall('c2', 'echo harmless'), completion({ content: 'Done.' }));
    const allowed = await f.send('run a harmless command');
    assert.equal(toolMessage(f, 3), { role: 'tool', tool_call_id: 'c2', content: 'harmless\n' });
    assert.equal(
      ofTurn(f, turnOf(allowed), 'hook.decided').map((e) => e.data.action),
      ['continue'],
    );
    // Replay shows why, and a rerun applies the recorded decision instead of asking the hook again.
    await f.runtime.log.flushed();
    const recorded = f.runtime.log.read({ turn: turnOf(denied) });
    assert.equal(await rerunTurn(recorded), { identical: true, compared: 9 });
    // The same from the command line, while the runtime still holds the log.
    const timeline = runCli(['replay', turnOf(denied)], f.home.env).stdout;
    assert.match(
      timeline,
      /ms {2}hook\.decided {8}guard at before_tool c1: deny_tool \(commands with MARKER-42 are not allowed here\)\n/,
    );
    assert.equal(runCli(['replay', turnOf(denied), '--rerun'], f.home.env), {
      code: 0,
      stdout: 'identical\n',
      stderr: '',
    });
    // The denial the model read is made again from the recorded decision: a decision edited in the log shows.
    const edited = recorded.map((e) =>
      e.type === 'hook.decided' ? { ...e, data: { ...e.data, reason: 'edited' } } : e,
    );
    const rerun = await rerunTurn(edited);
    assert.equal(rerun.identical ? undefined : [rerun.index, rerun.actual], [
      5,
      {
        type: 'tool.completed',
        data: { call_id: 'c1', name: 'exec', ok: false, content: 'Tool call denied by hook guard: edited' },
      },
    ]);
  });
});

test('a hook that modifies the tool arguments: the tool runs with the new ones, the log keeps both', async ({
  dir,
}) => {
  const rewrite = writeHookScript(
    dir,
    'rewrite',
    `{
    before_tool: (p) => ({
      action: 'modify',
      reason: 'quieter',
      call: { tool: p.tool, arguments: { ...p.arguments, command: 'echo rewritten' } },
    }),
  }`,
  );
  await withHooks({ rewrite: { command: [process.execPath, rewrite], intercept: ['before_tool'] } }, async (f) => {
    f.vendor.reply(execCall('c1', 'echo original'), completion({ content: 'ok' }));
    const reply = await f.send('echo something');
    const turn = turnOf(reply);
    assert.equal(ofTurn(f, turn, 'tool.requested')[0]!.data.arguments, { command: 'echo original' });
    assert.equal(
      ofTurn(f, turn, 'hook.decided').map((e) => e.data),
      [
        {
          hook: 'rewrite',
          point: 'before_tool',
          call_id: 'c1',
          action: 'modify',
          reason: 'quieter',
          call: { name: 'exec', arguments: { command: 'echo rewritten' } },
        },
      ],
    );
    assert.equal(toolMessage(f, 1), { role: 'tool', tool_call_id: 'c1', content: 'rewritten\n' });
    await f.runtime.log.flushed();
    assert.equal(await rerunTurn(f.runtime.log.read({ turn })), { identical: true, compared: 9 });
  });
});

test('an observer sees every event of the bus, in order, and writes each type to a file', async ({ dir }) => {
  const seen = join(dir, 'seen.txt');
  const observer = writeHookScript(
    dir,
    'observer',
    `{ event: (e) => appendFileSync(${JSON.stringify(seen)}, e.seq + ' ' + e.type + '\\n') }`,
  );
  await withHooks({ watcher: { command: [process.execPath, observer], observe: [] } }, async (f) => {
    f.vendor.reply(execCall('c1', 'echo watched'), completion({ content: 'watched it' }));
    const from = f.events.length;
    const reply = await f.send('watch this');
    const expected = f.events.slice(from).map((e) => `${e.seq} ${e.type}`);
    assert.ok(
      expected.some((line) => line.endsWith(' turn.completed')) &&
        expected.some((line) => line.endsWith(' tool.completed')),
    );
    await passes(() => {
      const lines = readFileSync(seen, 'utf8').trim().split('\n');
      const start = lines.indexOf(expected[0]!);
      assert.equal(lines.slice(start, start + expected.length), expected);
    });
    assert.ok(turnOf(reply));
  });
});

test('a hook that times out counts as continue: the turn goes on and the log says why', async ({ dir }) => {
  const slow = writeHookScript(dir, 'slow', `{ before_tool: () => NEVER }`);
  await withHooks(
    { slow: { command: [process.execPath, slow], intercept: ['before_tool'] } },
    async (f) => {
      f.vendor.reply(execCall('c1', 'echo still-ran'), completion({ content: 'fine' }));
      const reply = await f.send('go');
      assert.equal(reply.kind === 'turn' && reply.text, 'fine');
      assert.equal(toolMessage(f, 1), { role: 'tool', tool_call_id: 'c1', content: 'still-ran\n' });
      assert.equal(
        ofTurn(f, turnOf(reply), 'hook.decided').map((e) => e.data),
        [{ hook: 'slow', point: 'before_tool', call_id: 'c1', action: 'continue', reason: 'timed out after 300 ms' }],
      );
    },
    { interceptor_timeout_ms: 300 },
  );
});

test('a hook process that crashes is restarted with backoff and answers again', async ({ dir }) => {
  const crashed = join(dir, 'crashed-once');
  const hellos = join(dir, 'hellos.txt');
  const crasher = writeHookScript(
    dir,
    'crasher',
    `{
    hello: () => { appendFileSync(${JSON.stringify(hellos)}, 'hello\\n'); return { ok: true }; },
    before_tool: () => {
      if (!existsSync(${JSON.stringify(crashed)})) { writeFileSync(${JSON.stringify(crashed)}, 'x'); process.exit(3); }
      return { action: 'deny_tool', reason: 'back and denying' };
    },
  }`,
  );
  await withHooks({ crasher: { command: [process.execPath, crasher], intercept: ['before_tool'] } }, async (f) => {
    f.vendor.reply(execCall('c1', 'echo during-crash'), completion({ content: 'first' }));
    const first = await f.send('first');
    const [decided] = ofTurn(f, turnOf(first), 'hook.decided').map((e) => e.data);
    assert.is(decided?.action, 'continue');
    assert.match(decided?.reason ?? '', /^failed \((the process closed its output|exited with code 3)/);
    assert.equal(toolMessage(f, 1), { role: 'tool', tool_call_id: 'c1', content: 'during-crash\n' });
    await passes(() => assert.is(f.runtime.hooks.processHook('crasher')?.restarts, 1));
    f.vendor.reply(execCall('c2', 'echo after-restart'), completion({ content: 'second' }));
    const second = await f.send('second');
    assert.equal(
      ofTurn(f, turnOf(second), 'hook.decided').map((e) => e.data.reason),
      ['back and denying'],
    );
    assert.equal(readFileSync(hellos, 'utf8'), 'hello\nhello\n');
  });
});

test('a hook that answers something invalid counts as continue, with the reason logged in the decision', async ({
  dir,
}) => {
  const wrong = writeHookScript(dir, 'wrong', `{ before_tool: () => ({ action: 'explode' }) }`);
  await withHooks({ wrong: { command: [process.execPath, wrong], intercept: ['before_tool'] } }, async (f) => {
    f.vendor.reply(execCall('c1', 'echo ok'), completion({ content: 'fine' }));
    const reply = await f.send('go');
    const [decided] = ofTurn(f, turnOf(reply), 'hook.decided').map((e) => e.data);
    assert.is(decided?.action, 'continue');
    assert.match(
      decided?.reason ?? '',
      new RegExp(
        /^failed \(the answer to hook.before_tool is not valid \(action: /.source +
          /action must be one of continue, modify, respond, deny_tool, abort_turn, hard_abort\)\)$/.source,
      ),
    );
    assert.ok(existsSync(dir));
  });
});

test('an approval hook denies a call with its reason; one that does not answer in time denies it too', async ({
  dir,
}) => {
  const approver = writeHookScript(
    dir,
    'approver',
    `{
    approve_tool: (p) => String(p.arguments.command).includes('slow')
      ? NEVER
      : p.tool === 'exec' && String(p.arguments.command).includes('rm ')
        ? { approved: false, reason: 'no deleting' }
        : { approved: true },
  }`,
  );
  await withHooks(
    { approver: { command: [process.execPath, approver], intercept: ['approve_tool'] } },
    async (f) => {
      f.vendor.reply(execCall('c1', 'rm -f x'), completion({ content: 'refused' }));
      const denied = await f.send('delete x');
      assert.equal(toolMessage(f, 1), {
        role: 'tool',
        tool_call_id: 'c1',
        content: 'Tool call denied by approval hook approver: no deleting',
      });
      f.vendor.reply(execCall('c2', 'echo slow'), completion({ content: 'timed out' }));
      const slow = await f.send('echo slow');
      assert.equal(toolMessage(f, 3), {
        role: 'tool',
        tool_call_id: 'c2',
        content: 'Tool call denied by approval hook approver: timed out after 400 ms',
      });
      f.vendor.reply(execCall('c3', 'echo fine'), completion({ content: 'ran' }));
      await f.send('echo fine');
      assert.equal(toolMessage(f, 5), { role: 'tool', tool_call_id: 'c3', content: 'fine\n' });
      assert.equal(
        ofTurn(f, turnOf(denied), 'hook.decided').map((e) => e.data),
        [{ hook: 'approver', point: 'approve_tool', call_id: 'c1', action: 'deny_tool', reason: 'no deleting' }],
      );
      assert.equal(
        ofTurn(f, turnOf(slow), 'hook.decided').map((e) => e.data.action),
        ['deny_tool'],
      );
    },
    { approval_timeout_ms: 400 },
  );
});

test.run();
