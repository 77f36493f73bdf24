import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor } from 'xstate';
import { loopChecker } from '../../actors/loop-checker.js';
import { loopDetectionMachine, loopDetectionSettingsSchema, loopWarning, turnStart, type LoopDetectionInput } from '../../machines/loop-detection.js';

const settings: LoopDetectionInput = { enabled: true, repeat_threshold: 3, critical_threshold: 6, window_size: 20 };
type Signal = { kind: 'warn' | 'stop'; name: string; count: number };

function start(input: LoopDetectionInput = settings) {
  const signals: Signal[] = [];
  const machine = loopDetectionMachine.provide({
    actions: {
      warnModel: (_, p) => signals.push({ kind: 'warn', ...p }),
      stopTurn: (_, p) => signals.push({ kind: 'stop', ...p }),
    },
  });
  const actor = createActor(machine, { input }).start();
  const call = (name: string, args: unknown = { path: 'a.txt' }) => actor.send({ type: 'TOOL_CALLED', name, arguments: args });
  const state = () => actor.getSnapshot().value;
  return { actor, call, state, signals };
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
  assert.equal(signals, [{ kind: 'warn', name: 'read_file', count: 3 }]);
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
    { kind: 'warn', name: 'read_file', count: 3 },
    { kind: 'stop', name: 'read_file', count: 6 },
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
  assert.equal(signals.map((s) => s.kind), ['warn', 'warn']);
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
    { name: 'same keys in another order', second: ['exec', { cwd: '/w', command: 'ls', env: { B: '2', A: '1' } }], streak: 2 },
    { name: 'a nested value differs', second: ['exec', { command: 'ls', cwd: '/w', env: { A: '1', B: '3' } }], streak: 1 },
    { name: 'an extra key', second: ['exec', { command: 'ls', cwd: '/w', env: { A: '1', B: '2' }, timeout: 5 }], streak: 1 },
    { name: 'another tool with the same arguments', second: ['run', { command: 'ls', cwd: '/w', env: { A: '1', B: '2' } }], streak: 1 },
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

test('TURN_STARTED starts the machine over with that turn\'s settings, from warning, normal or disabled', () => {
  const { actor, call, state } = start();
  for (let i = 0; i < 4; i++) call('read_file');
  actor.send({ type: 'TURN_STARTED', settings: { ...settings, repeat_threshold: 2 } });
  assert.is(state(), 'normal');
  assert.equal(actor.getSnapshot().context, { settings: { ...settings, repeat_threshold: 2 }, lastCall: null, lastName: null, streak: 0 });
  call('read_file');
  call('read_file');
  assert.is(state(), 'warning');
  actor.send({ type: 'TURN_STARTED', settings: { ...settings, enabled: false } });
  assert.is(state(), 'disabled');
  actor.send({ type: 'TURN_STARTED', settings });
  assert.is(state(), 'normal');
});

test('TURN_STARTED with the turn\'s first call starts over and counts that call in the same step', () => {
  const { actor, call, state } = start();
  const first = { type: 'TOOL_CALLED', name: 'read_file', arguments: { path: 'a.txt' } } as const;
  for (let i = 0; i < 4; i++) call('read_file');
  actor.send({ type: 'TURN_STARTED', settings, first });
  assert.is(state(), 'normal');
  assert.equal(actor.getSnapshot().context, { settings, lastCall: 'read_file\u0000{"path":"a.txt"}', lastName: 'read_file', streak: 1 });
  call('read_file');
  assert.is(actor.getSnapshot().context.streak, 2, 'the next identical call continues the streak');
  actor.send({ type: 'TURN_STARTED', settings, first: { type: 'TOOL_CALLED', name: 'spawn_status', arguments: {} } });
  assert.equal([state(), actor.getSnapshot().context.streak, actor.getSnapshot().context.lastCall], ['normal', 0, null]);
  actor.send({ type: 'TURN_STARTED', settings: { ...settings, enabled: false }, first });
  assert.equal([state(), actor.getSnapshot().context.streak, actor.getSnapshot().context.lastCall], ['disabled', 0, null]);
});

test('turnStart gives the state and context TURN_STARTED leads to, so a turn\'s first call needs no machine', () => {
  const read = { type: 'TOOL_CALLED', name: 'read_file', arguments: { path: 'a.txt' } } as const;
  const poll = { type: 'TOOL_CALLED', name: 'spawn_status', arguments: { id: 'sub-1' } } as const;
  const disabled = { ...settings, enabled: false };
  for (const [turnSettings, first] of [[settings, read], [settings, poll], [settings, undefined], [disabled, read], [disabled, undefined]] as const) {
    const { actor, call } = start();
    for (let i = 0; i < 4; i++) call('read_file');
    actor.send({ type: 'TURN_STARTED', settings: turnSettings, ...(first ? { first } : {}) });
    const label = `${turnSettings.enabled ? 'enabled' : 'disabled'}, first ${first?.name ?? 'none'}`;
    assert.equal(turnStart(turnSettings, first), { state: actor.getSnapshot().value, context: actor.getSnapshot().context }, label);
  }
});

test('a checker answers a turn\'s first call from turnStart and counts the second on a machine started with the first', () => {
  const strict = { ...settings, repeat_threshold: 2, critical_threshold: 3 };
  const checker = loopChecker(strict);
  assert.equal(checker.check({ id: 'a', name: 'read_file', arguments: { path: 'a.txt' } }), { state: 'normal', streak: 1 });
  assert.equal(checker.check({ id: 'b', name: 'read_file', arguments: { path: 'a.txt' } }), { state: 'warning', streak: 2 });
  assert.equal(checker.check({ id: 'c', name: 'read_file', arguments: { path: 'a.txt' } }), { state: 'stopped', streak: 3 });
  checker.release();
  assert.equal(loopChecker({ ...strict, enabled: false }).check({ id: 'd', name: 'read_file', arguments: {} }), { state: 'disabled', streak: 0 });
});

test('a released checker serves the next turn from a fresh start; one that stopped its turn is not reused', () => {
  const strict = { ...settings, repeat_threshold: 2, critical_threshold: 3 };
  const read = { id: 'c', name: 'read_file', arguments: { path: 'a.txt' } };
  const first = loopChecker(strict);
  first.check(read);
  assert.equal(first.check(read), { state: 'warning', streak: 2 });
  first.release();
  const second = loopChecker(strict);
  assert.equal(second.check(read), { state: 'normal', streak: 1 });
  second.check(read);
  assert.equal(second.check(read), { state: 'stopped', streak: 3 });
  second.release();
  assert.equal(loopChecker(strict).check(read), { state: 'normal', streak: 1 });
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
    assert.equal(parsed.error?.issues.map((i) => i.path.join('.')), paths, JSON.stringify(change));
  }
  assert.is(loopDetectionSettingsSchema.safeParse(settings).success, true);
});

test('the warning for the model names the tool and the count', () => {
  assert.is(
    loopWarning('read_file', 3),
    'You have called read_file 3 times in a row with the same arguments. It is not making progress: change the arguments, use another tool, or answer with what you have.',
  );
});

test.run();
