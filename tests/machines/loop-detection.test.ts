import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor } from 'xstate';
import {
  loopDetectionMachine,
  loopDetectionSettingsSchema,
  loopWarning,
  type LoopDetectionInput,
  type LoopVerdict,
} from '../../machines/loop-detection.js';

const settings: LoopDetectionInput = { enabled: true, repeat_threshold: 3, critical_threshold: 6, window_size: 20 };
type Signal = { kind: 'warn' | 'stop'; count: number };

/** Given the settings, when tool calls are shown to it, then the verdict it reports after each (the turn's answers). */
function start(input: LoopDetectionInput = settings) {
  const verdicts: LoopVerdict[] = [];
  const signals: Signal[] = [];
  // A warning is the call that moves normal to warning; a stop the call that reaches stopped.
  const report = (verdict: LoopVerdict): void => {
    if (verdict.state === 'stopped') signals.push({ kind: 'stop', count: verdict.streak });
    else if (verdict.state === 'warning' && verdicts.at(-1)?.state !== 'warning')
      signals.push({ kind: 'warn', count: verdict.streak });
    verdicts.push(verdict);
  };
  const machine = loopDetectionMachine.provide({ actions: { report: (_, verdict) => report(verdict) } });
  const actor = createActor(machine, { input }).start();
  const call = (name: string, args: unknown = { path: 'a.txt' }) =>
    actor.send({ type: 'TOOL_CALLED', name, arguments: args });
  const state = () => actor.getSnapshot().value;
  return { actor, call, state, verdicts, signals };
}

test('identical consecutive calls below repeat_threshold stay normal', () => {
  const { call, state, signals, actor } = start();
  call('read_file');
  call('read_file');
  assert.is(state(), 'normal');
  assert.is(actor.getSnapshot().context.streak, 2);
  assert.equal(signals, []);
});

test('the call that reaches repeat_threshold moves normal to warning and warns the model once', () => {
  const { call, state, signals } = start();
  for (let i = 0; i < 3; i++) call('read_file');
  assert.is(state(), 'warning');
  assert.equal(signals, [{ kind: 'warn', count: 3 }]);
});

test('more identical calls below critical_threshold stay in warning without a second warning', () => {
  const { call, state, signals } = start();
  for (let i = 0; i < 5; i++) call('read_file');
  assert.is(state(), 'warning');
  assert.is(signals.length, 1);
});

test('the call that reaches critical_threshold stops the turn', () => {
  const { call, state, signals, actor } = start();
  for (let i = 0; i < 6; i++) call('read_file');
  assert.is(state(), 'stopped');
  assert.is(actor.getSnapshot().status, 'done');
  assert.equal(signals, [
    { kind: 'warn', count: 3 },
    { kind: 'stop', count: 6 },
  ]);
});

test('a different call in warning goes back to normal and starts a new streak', () => {
  const { call, state, actor } = start();
  for (let i = 0; i < 4; i++) call('read_file');
  call('read_file', { path: 'b.txt' });
  assert.is(state(), 'normal');
  assert.is(actor.getSnapshot().context.streak, 1);
});

test('a new streak after leaving warning warns again at repeat_threshold', () => {
  const { call, state, signals } = start();
  for (let i = 0; i < 3; i++) call('read_file');
  call('exec', { command: 'ls' });
  for (let i = 0; i < 3; i++) call('read_file');
  assert.is(state(), 'warning');
  assert.equal(
    signals.map((s) => s.kind),
    ['warn', 'warn'],
  );
});

test('spawn_status is not counted and resets a preceding streak in normal', () => {
  const { call, state, actor } = start();
  call('read_file');
  call('read_file');
  call('spawn_status', { id: 'sub-1' });
  call('read_file');
  call('read_file');
  assert.is(state(), 'normal');
  assert.is(actor.getSnapshot().context.streak, 2);
});

test('spawn_status in warning goes back to normal with no streak', () => {
  const { call, state, actor } = start();
  for (let i = 0; i < 4; i++) call('read_file');
  call('spawn_status', { id: 'sub-1' });
  assert.is(state(), 'normal');
  assert.is(actor.getSnapshot().context.streak, 0);
});

test('repeated spawn_status polling never warns', () => {
  const { call, state, signals } = start();
  for (let i = 0; i < 10; i++) call('spawn_status', { id: 'sub-1' });
  assert.is(state(), 'normal');
  assert.equal(signals, []);
});

test('calls are identical by name and complete arguments, whatever the key order', () => {
  const cases: { name: string; second: [string, unknown]; streak: number }[] = [
    {
      name: 'same keys in another order',
      second: ['exec', { cwd: '/w', command: 'ls', env: { B: '2', A: '1' } }],
      streak: 2,
    },
    {
      name: 'a nested value differs',
      second: ['exec', { command: 'ls', cwd: '/w', env: { A: '1', B: '3' } }],
      streak: 1,
    },
    {
      name: 'an extra key',
      second: ['exec', { command: 'ls', cwd: '/w', env: { A: '1', B: '2' }, timeout: 5 }],
      streak: 1,
    },
    {
      name: 'another tool with the same arguments',
      second: ['run', { command: 'ls', cwd: '/w', env: { A: '1', B: '2' } }],
      streak: 1,
    },
  ];
  for (const c of cases) {
    const { call, actor } = start();
    call('exec', { command: 'ls', cwd: '/w', env: { A: '1', B: '2' } });
    call(...c.second);
    assert.is(actor.getSnapshot().context.streak, c.streak, c.name);
  }
});

test('with enabled false the machine is disabled and ignores every call', () => {
  const { call, state, signals } = start({ ...settings, enabled: false });
  assert.is(state(), 'disabled');
  for (let i = 0; i < 10; i++) call('read_file');
  assert.is(state(), 'disabled');
  assert.equal(signals, []);
});

test('every call is answered with a verdict: the state after it and the streak', () => {
  const { call, verdicts } = start({ ...settings, repeat_threshold: 2, critical_threshold: 3 });
  call('read_file');
  call('spawn_status', { id: 'sub-1' });
  call('read_file');
  call('read_file');
  call('read_file');
  assert.equal(verdicts, [
    { state: 'normal', streak: 1 },
    { state: 'normal', streak: 0 },
    { state: 'normal', streak: 1 },
    { state: 'warning', streak: 2 },
    { state: 'stopped', streak: 3 },
  ]);
});

test('a disabled machine still answers each call, as disabled', () => {
  const { call, verdicts } = start({ ...settings, enabled: false });
  call('read_file');
  assert.equal(verdicts, [{ state: 'disabled', streak: 0 }]);
});

test('a window smaller than critical_threshold can never stop a turn, which is why it is a config error', () => {
  const { call, state } = start({ enabled: true, repeat_threshold: 2, critical_threshold: 5, window_size: 4 });
  for (let i = 0; i < 20; i++) call('read_file');
  assert.is(state(), 'warning');
});

test('the settings schema refuses a repeat_threshold below 2 and non-integer counts', () => {
  const cases: [Record<string, unknown>, string[]][] = [
    [{ repeat_threshold: 1 }, ['repeat_threshold']],
    [{ critical_threshold: 6.5 }, ['critical_threshold']],
    [{ window_size: 0 }, ['window_size']],
    [{ enabled: 'yes' }, ['enabled']],
  ];
  for (const [change, paths] of cases) {
    const parsed = loopDetectionSettingsSchema.safeParse({ ...settings, ...change });
    assert.equal(
      parsed.error?.issues.map((i) => i.path.join('.')),
      paths,
      JSON.stringify(change),
    );
  }
  assert.is(loopDetectionSettingsSchema.safeParse(settings).success, true);
});

test('the warning for the model names the tool and the count', () => {
  assert.is(
    loopWarning('read_file', 3),
    'You have called read_file 3 times in a row with the same arguments. It is not making progress: ' +
      'change the arguments, use another tool, or answer with what you have.',
  );
});

test.run();
