import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MemoryEventStore } from '../../store/log/memory-event-store.js';
import {
  InProcessBus,
  createHooks,
  draftOf,
  emitterHook,
  InvalidEventError,
  sessionIdOf,
  toSessionId,
  typeMatcher,
  validateDraft,
  type Envelope,
  type EventDraft,
} from '../../bus/index.js';

const received = (text = 'hi'): EventDraft<'message.received'> => ({
  type: 'message.received',
  agent: 'main',
  session: 's1',
  data: { channel: 'cli', account: 'default', message_id: 'm1', chat: 'direct:me', sender: 'me', text, media: [] },
});

test('publish stamps seq in order and keeps the data as given', () => {
  const bus = new InProcessBus();
  const first = bus.publish(received());
  const second = bus.publish(received('again'));
  assert.equal([first.seq, second.seq], [1, 2]);
  assert.equal(first.data, {
    channel: 'cli',
    account: 'default',
    message_id: 'm1',
    chat: 'direct:me',
    sender: 'me',
    text: 'hi',
    media: [],
  });
});

test(
  'checking events (the test runs): ' + "a draft that is not its schema's output is refused, naming what it parses to",
  () => {
    const bus = new InProcessBus();
    const incomplete = {
      type: 'message.received',
      data: { channel: 'cli', message_id: 'm1', chat: 'direct:me', sender: 'me', text: 'hi' },
    } as unknown as EventDraft;
    assert.throws(
      () => bus.publish(incomplete),
      (e: unknown) => e instanceof InvalidEventError && /parses to .*"account":"default".*"media":\[\]/.test(e.message),
    );
  },
);

test('an event from outside is parsed at the edge: defaults applied, bad data named', () => {
  const parsed = validateDraft({
    type: 'message.sent',
    data: { channel: 'cli', chat: 'c', text: 'hi', send_key: 'k' },
  } as unknown as EventDraft);
  assert.equal(parsed.data, { channel: 'cli', chat: 'c', text: 'hi', send_key: 'k', part: 0, media: [] });
  assert.throws(
    () => validateDraft({ type: 'message.sent', data: { channel: 'cli' } } as unknown as EventDraft),
    (e: unknown) => e instanceof InvalidEventError && /chat/.test(e.message),
  );
});

test('publish copies the draft: its keys in order, then seq and at; a given time is kept', () => {
  const bus = new InProcessBus();
  const draft = { ...received(), at: 1_700_000_000_000 };
  const envelope = bus.publish(draft);
  assert.equal(Object.keys(envelope), ['type', 'agent', 'session', 'data', 'at', 'seq']);
  assert.is(envelope.at, 1_700_000_000_000);
  assert.equal(Object.keys(draft), ['type', 'agent', 'session', 'data', 'at']);
  assert.equal(draft.data, {
    channel: 'cli',
    account: 'default',
    message_id: 'm1',
    chat: 'direct:me',
    sender: 'me',
    text: 'hi',
    media: [],
  });
});

test('draftOf builds a draft with the keys first, then type and data, and leaves the keys alone', () => {
  const keys = { agent: 'main', session: 's1' };
  const draft = draftOf(keys, 'turn.aborted', { reason: 'shutdown' });
  assert.equal(Object.keys(draft), ['agent', 'session', 'type', 'data']);
  assert.equal(new InProcessBus().publish(draft).data, { reason: 'shutdown' });
  assert.equal(keys, { agent: 'main', session: 's1' });
});

test('an event with bad data fails loudly naming the field, and nobody sees it', () => {
  const bus = new InProcessBus();
  const seen: Envelope[] = [];
  bus.events$.subscribe((e) => seen.push(e));
  const bad = { type: 'provider.chunk', data: { kind: 'shout', delta: 1 } } as unknown as EventDraft;
  assert.throws(
    () => bus.publish(bad),
    (e: unknown) => e instanceof InvalidEventError && /kind/.test(e.message) && /delta/.test(e.message),
  );
  assert.equal(seen, []);
});

test('an unknown event type is refused', () => {
  const bus = new InProcessBus();
  const bad = { type: 'turn.exploded', data: {} } as unknown as EventDraft;
  assert.throws(
    () => bus.publish(bad),
    (e: unknown) => e instanceof InvalidEventError && e.code === 'invalid_event',
  );
});

test('on() delivers only the named types, typed', () => {
  const bus = new InProcessBus();
  const texts: string[] = [];
  bus.on('message.received').subscribe((e) => texts.push(e.data.text));
  bus.publish({ type: 'provider.chunk', data: { kind: 'text', delta: 'x' } });
  bus.publish(received('one'));
  assert.equal(texts, ['one']);
});

test('select() delivers events whose correlation keys all match', () => {
  const bus = new InProcessBus();
  const seqs: number[] = [];
  bus.select({ session: 's1', turn: 't1' }).subscribe((e) => seqs.push(e.seq));
  bus.publish({ type: 'provider.chunk', session: 's1', turn: 't1', data: { kind: 'text', delta: 'a' } });
  bus.publish({ type: 'provider.chunk', session: 's1', turn: 't2', data: { kind: 'text', delta: 'b' } });
  bus.publish({ type: 'provider.chunk', session: 's2', turn: 't1', data: { kind: 'text', delta: 'c' } });
  assert.equal(seqs, [1]);
});

test('an event published by a subscriber reaches every subscriber after the current one', () => {
  const bus = new InProcessBus();
  const first: number[] = [];
  const second: number[] = [];
  bus.events$.subscribe((e) => {
    first.push(e.seq);
    if (e.type === 'message.received')
      bus.publish({ type: 'provider.chunk', data: { kind: 'text', delta: 'reaction' } });
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

test(
  'an in-process hook (mitt) denies a call synchronously, ' + 'and answers only points it has a handler for',
  async () => {
    const hooks = createHooks();
    hooks.on('before_tool', (ask) => {
      if (ask.call.name === 'exec') ask.decide({ action: 'deny_tool', reason: 'needs approval' });
      else ask.decide({ action: 'continue' });
    });
    const hook = emitterHook('guard', 0, hooks);
    const meta = { channel: 'cli', chat: 'direct:me' };
    const decision = await hook.decide(
      { point: 'before_tool', meta, call: { id: 'c1', name: 'exec', arguments: {} } },
      new AbortController().signal,
    );
    assert.equal(decision, { action: 'deny_tool', reason: 'needs approval' });
    assert.is(hook.intercepts('before_tool'), true);
    assert.is(hook.intercepts('after_tool'), false);
    assert.is(hook.observes('tool.completed'), false);
  },
);

test('an in-process hook that never decides is cut off by the caller', async () => {
  const hooks = createHooks();
  hooks.on('approve_tool', () => {});
  const controller = new AbortController();
  const asked = emitterHook('slow', 0, hooks).decide(
    { point: 'approve_tool', meta: { channel: 'cli', chat: 'c' }, call: { id: 'c1', name: 'exec', arguments: {} } },
    controller.signal,
  );
  controller.abort(new Error('timed out'));
  await asked.then(
    () => assert.unreachable('it decided'),
    (error: Error) => assert.is(error.message, 'timed out'),
  );
});

const routed = (id: string, session = 's1'): EventDraft<'message.routed'> => ({
  type: 'message.routed',
  agent: 'main',
  session,
  data: {
    message_id: id,
    channel: 'cli',
    account: 'default',
    chat: 'direct:me',
    sender: 'me',
    text: id,
    session_key: `key-${session}`,
    remote: false,
    media: [],
  },
});

test('work published before its group has a consumer waits for it, then goes to that consumer once', () => {
  const bus = new InProcessBus();
  bus.publish(routed('m1'));
  bus.publish(routed('m2'));
  const got: string[] = [];
  const subscription = bus.work('sessions').subscribe((e) => got.push(e.data.message_id));
  bus.publish(routed('m3'));
  assert.equal(got, ['m1', 'm2', 'm3']);
  subscription.unsubscribe();
  bus.publish(routed('m4'));
  const again: string[] = [];
  bus.work('sessions').subscribe((e) => again.push(e.data.message_id));
  assert.equal(again, ['m4'], 'work published between two consumers waits for the next one');
});

test('a work group has one consumer per process; other groups and observers are apart', () => {
  const bus = new InProcessBus();
  const seen: string[] = [];
  bus.events$.subscribe((e) => seen.push(e.type));
  bus.work('sessions').subscribe(() => undefined);
  let refused: unknown;
  bus.work('sessions').subscribe({ error: (e: unknown) => (refused = e) });
  assert.match(String(refused), /already has a consumer/);
  const replies: string[] = [];
  bus.work('outbox').subscribe((e) => replies.push(e.data.text));
  bus.publish(routed('m1'));
  bus.publish({
    type: 'reply.requested',
    agent: 'main',
    session: 's1',
    data: {
      message_id: 'm1',
      outcome: 'command',
      text: 'hi back',
      key: 'tg:m1:command',
      reply: { channel: 'tg', chat: 'direct:1', reply_to: '1' },
    },
  });
  bus.publish({
    type: 'reply.requested',
    agent: 'main',
    session: 's1',
    data: { message_id: 'm2', outcome: 'command', text: 'for the asker', key: 'cli:m2:command' },
  });
  assert.equal(replies, ['hi back'], 'a reply without a target is no work for the outbox: whoever asked reads it');
  assert.equal(seen, ['message.routed', 'reply.requested', 'reply.requested']);
});

test(
  'requeued work (what a crashed run left) reaches the consumer before work published after it, ' +
    'and observers never see it again',
  () => {
    const log = new MemoryEventStore();
    const earlier = new InProcessBus(log);
    const left = earlier.publish(routed('left over'));
    const bus = new InProcessBus(log);
    const seen: number[] = [];
    bus.events$.subscribe((e) => seen.push(e.seq));
    bus.requeue([left]);
    bus.publish(routed('new'));
    const got: string[] = [];
    bus.work('sessions').subscribe((e) => got.push(`${e.seq}:${e.data.message_id}`));
    assert.equal(got, ['1:left over', '2:new']);
    assert.equal(seen, [2]);
    assert.is(log.read().length, 2, 'requeueing appends nothing');
  },
);

test('the redaction hook rewrites the data of every draft before it is logged and delivered', async () => {
  const log = new MemoryEventStore();
  const mask = <D>(data: D): D => JSON.parse(JSON.stringify(data).replaceAll('sk-secret-1234', '[redacted]')) as D;
  const bus = new InProcessBus(log, { redact: mask });
  const delivered: string[] = [];
  bus.on('tool.completed').subscribe((e) => delivered.push(e.data.content));
  const envelope = bus.publish({
    type: 'tool.completed',
    data: { call_id: 'c', name: 'exec', ok: true, content: 'key=sk-secret-1234' },
  });
  assert.equal(
    [envelope.data.content, delivered, log.get(1)?.type === 'tool.completed' && log.get(1)?.data],
    ['key=[redacted]', ['key=[redacted]'], { call_id: 'c', name: 'exec', ok: true, content: 'key=[redacted]' }],
  );
});

test('durable() resolves once what was published is committed to the log', async () => {
  const home = (await import('../support/temp-home.js')).tempHome();
  const { EventLog } = await import('../../store/log/event-log.js');
  const log = EventLog.open(home.sessions);
  const bus = new InProcessBus(log);
  bus.publish(routed('m1'));
  assert.is(log.lastCommittedSeq(), 0, 'a write waits for the next turn of the event loop');
  await bus.durable();
  assert.is(log.lastCommittedSeq(), 1);
  log.close();
  home.remove();
});

test.run();
