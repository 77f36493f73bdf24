import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Bus, createHooks, draftOf, emitterHook, InvalidEventError, sessionIdOf, toSessionId, typeMatcher, validateDraft, type Envelope, type EventDraft } from '../../bus/index.js';

const received = (text = 'hi'): EventDraft<'message.received'> => ({
  type: 'message.received',
  agent: 'main',
  session: 's1',
  data: { channel: 'cli', account: 'default', message_id: 'm1', chat: 'direct:me', sender: 'me', text, media: [] },
});

test('publish stamps seq in order and keeps the data as given', () => {
  const bus = new Bus();
  const first = bus.publish(received());
  const second = bus.publish(received('again'));
  assert.equal([first.seq, second.seq], [1, 2]);
  assert.equal(first.data, { channel: 'cli', account: 'default', message_id: 'm1', chat: 'direct:me', sender: 'me', text: 'hi', media: [] });
});

test('checking events (the test runs): a draft that is not its schema\'s output is refused, naming what it parses to', () => {
  const bus = new Bus();
  const incomplete = { type: 'message.received', data: { channel: 'cli', message_id: 'm1', chat: 'direct:me', sender: 'me', text: 'hi' } } as unknown as EventDraft;
  assert.throws(() => bus.publish(incomplete), (e: unknown) => e instanceof InvalidEventError && /parses to .*"account":"default".*"media":\[\]/.test(e.message));
});

test('an event from outside is parsed at the edge: defaults applied, bad data named', () => {
  const parsed = validateDraft({ type: 'message.sent', data: { channel: 'cli', chat: 'c', text: 'hi', send_key: 'k' } } as unknown as EventDraft);
  assert.equal(parsed.data, { channel: 'cli', chat: 'c', text: 'hi', send_key: 'k', part: 0, media: [] });
  assert.throws(() => validateDraft({ type: 'message.sent', data: { channel: 'cli' } } as unknown as EventDraft), (e: unknown) => e instanceof InvalidEventError && /chat/.test(e.message));
});

test('publish copies the draft: its keys in order, then seq and at; a given time is kept', () => {
  const bus = new Bus();
  const draft = { ...received(), at: 1_700_000_000_000 };
  const envelope = bus.publish(draft);
  assert.equal(Object.keys(envelope), ['type', 'agent', 'session', 'data', 'at', 'seq']);
  assert.is(envelope.at, 1_700_000_000_000);
  assert.equal(Object.keys(draft), ['type', 'agent', 'session', 'data', 'at']);
  assert.equal(draft.data, { channel: 'cli', account: 'default', message_id: 'm1', chat: 'direct:me', sender: 'me', text: 'hi', media: [] });
});

test('draftOf builds a draft with the keys first, then type and data, and leaves the keys alone', () => {
  const keys = { agent: 'main', session: 's1' };
  const draft = draftOf(keys, 'turn.aborted', { reason: 'shutdown' });
  assert.equal(Object.keys(draft), ['agent', 'session', 'type', 'data']);
  assert.equal(new Bus().publish(draft).data, { reason: 'shutdown' });
  assert.equal(keys, { agent: 'main', session: 's1' });
});

test('an event with bad data fails loudly naming the field, and nobody sees it', () => {
  const bus = new Bus();
  const seen: Envelope[] = [];
  bus.events$.subscribe((e) => seen.push(e));
  const bad = { type: 'provider.chunk', data: { kind: 'shout', delta: 1 } } as unknown as EventDraft;
  assert.throws(() => bus.publish(bad), (e: unknown) => e instanceof InvalidEventError && /kind/.test(e.message) && /delta/.test(e.message));
  assert.equal(seen, []);
});

test('an unknown event type is refused', () => {
  const bus = new Bus();
  const bad = { type: 'turn.exploded', data: {} } as unknown as EventDraft;
  assert.throws(() => bus.publish(bad), (e: unknown) => e instanceof InvalidEventError && e.code === 'invalid_event');
});

test('on() delivers only the named types, typed', () => {
  const bus = new Bus();
  const texts: string[] = [];
  bus.on('message.received').subscribe((e) => texts.push(e.data.text));
  bus.publish({ type: 'provider.chunk', data: { kind: 'text', delta: 'x' } });
  bus.publish(received('one'));
  assert.equal(texts, ['one']);
});

test('select() delivers events whose correlation keys all match', () => {
  const bus = new Bus();
  const seqs: number[] = [];
  bus.select({ session: 's1', turn: 't1' }).subscribe((e) => seqs.push(e.seq));
  bus.publish({ type: 'provider.chunk', session: 's1', turn: 't1', data: { kind: 'text', delta: 'a' } });
  bus.publish({ type: 'provider.chunk', session: 's1', turn: 't2', data: { kind: 'text', delta: 'b' } });
  bus.publish({ type: 'provider.chunk', session: 's2', turn: 't1', data: { kind: 'text', delta: 'c' } });
  assert.equal(seqs, [1]);
});

test('an event published by a subscriber reaches every subscriber after the current one', () => {
  const bus = new Bus();
  const first: number[] = [];
  const second: number[] = [];
  bus.events$.subscribe((e) => {
    first.push(e.seq);
    if (e.type === 'message.received') bus.publish({ type: 'provider.chunk', data: { kind: 'text', delta: 'reaction' } });
  });
  bus.events$.subscribe((e) => second.push(e.seq));
  bus.publish(received());
  assert.equal(first, [1, 2]);
  assert.equal(second, [1, 2]);
});

const globs: Array<[string, string, boolean]> = [
  ['provider.*', 'provider.chunk', true],
  ['provider.*', 'turn.started', false],
  ['*.failed', 'provider.failed', true],
  ['turn.started', 'turn.started', true],
  ['turn.started', 'turn.startedx', false],
  ['turn.*, tool.*', 'tool.completed', true],
  ['message.received', 'messageXreceived', false],
  ['', 'anything.at_all', true],
];
for (const [pattern, type, expected] of globs) {
  test(`type pattern "${pattern}" ${expected ? 'matches' : 'does not match'} ${type}`, () => {
    assert.is(typeMatcher(pattern)(type), expected);
  });
}

test('session ids are sk_v1_ plus the sha256 of the key, and an id passes through', () => {
  const key = 'v=1|agent=main|channel=cli|account=default|chat=direct:me';
  assert.is(sessionIdOf(key), 'sk_v1_5472a6443658d30a5ac87210510d67fcb99f008946ddd0617cd48c258e5bb7af');
  assert.is(toSessionId(sessionIdOf(key)), sessionIdOf(key));
  assert.is.not(sessionIdOf(key), sessionIdOf(`${key}x`));
});

test('an in-process hook (mitt) denies a call synchronously, and answers only points it has a handler for', async () => {
  const hooks = createHooks();
  hooks.on('before_tool', (ask) => {
    if (ask.call.name === 'exec') ask.decide({ action: 'deny_tool', reason: 'needs approval' });
    else ask.decide({ action: 'continue' });
  });
  const hook = emitterHook('guard', 0, hooks);
  const meta = { channel: 'cli', chat: 'direct:me' };
  const decision = await hook.decide({ point: 'before_tool', meta, call: { id: 'c1', name: 'exec', arguments: {} } }, new AbortController().signal);
  assert.equal(decision, { action: 'deny_tool', reason: 'needs approval' });
  assert.is(hook.intercepts('before_tool'), true);
  assert.is(hook.intercepts('after_tool'), false);
  assert.is(hook.observes('tool.completed'), false);
});

test('an in-process hook that never decides is cut off by the caller', async () => {
  const hooks = createHooks();
  hooks.on('approve_tool', () => {});
  const controller = new AbortController();
  const asked = emitterHook('slow', 0, hooks).decide({ point: 'approve_tool', meta: { channel: 'cli', chat: 'c' }, call: { id: 'c1', name: 'exec', arguments: {} } }, controller.signal);
  controller.abort(new Error('timed out'));
  await asked.then(() => assert.unreachable('it decided'), (error: Error) => assert.is(error.message, 'timed out'));
});

test.run();
