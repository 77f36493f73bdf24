import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../bus/index.js';
import { busQuiet } from '../support/quiet.js';
import { eventually } from '../support/eventually.js';
import type { ModelRequest } from '../support/rule-model.js';
import { startSubagentFixture } from '../support/subagent-fixture.js';

const isChild = (r: ModelRequest): boolean => r.user.startsWith('You are a subagent');
const ended = (events: Envelope[]) =>
  events.filter((e): e is Envelope<'subagent.ended'> => e.type === 'subagent.ended');
const aborted = (events: Envelope[]) => events.filter((e): e is Envelope<'turn.aborted'> => e.type === 'turn.aborted');

/** The parent spawns (or, asked to "wait", calls subagent for) a child whose model never answers. */
const hanging = (r: ModelRequest) => {
  if (isChild(r)) return 'hang' as const;
  if (r.last === 'tool') return { text: r.toolResult };
  return {
    calls: [{ name: r.user.startsWith('wait') ? 'subagent' : 'spawn', arguments: { task: r.user, label: r.user } }],
  };
};

const test = suite('stopping subagents');

test("/subagents lists this chat's running tasks; /stop in the chat cancels them and records why", async () => {
  const f = await startSubagentFixture(hanging);
  try {
    await f.say('crawl the site');
    await f.say('other chat job', { chat: 'u2' });
    await eventually(() => f.model.requests.filter(isChild).length, 2);
    const listed = await f.say('/subagents');
    assert.is(listed.kind, 'command');
    assert.match(
      listed.kind === 'command' ? listed.text : '',
      /^Running subagent tasks \(1\):\nsa_[0-9a-z]+ "crawl the site" \(agent main\): running for \d+ s$/,
    );
    const stopped = await f.say('/stop');
    assert.equal(stopped, { kind: 'command', text: 'Stopped 1 subagent task.' });
    await eventually(() => aborted(f.events).length, 1);
    assert.equal(
      ended(f.events).map((e) => ({ status: e.data.status, reason: e.data.reason })),
      [{ status: 'canceled', reason: '/stop in the chat that started it' }],
    );
    assert.equal(
      aborted(f.events).map((e) => e.data.reason),
      ['/stop in the chat that started it'],
    );
    assert.ok(aborted(f.events)[0]!.task, "the child's turn was aborted");
    assert.equal(await f.say('/subagents'), { kind: 'command', text: 'No subagent tasks are running in this chat.' });
    // The other chat's task still runs; a canceled task tells no one.
    assert.equal((await f.say('/subagents', { chat: 'u2' })).kind === 'command', true);
    assert.match(
      ((await f.say('/subagents', { chat: 'u2' })) as { text: string }).text,
      /^Running subagent tasks \(1\)/,
    );
    assert.equal(f.sent, []);
    assert.equal(await f.say('/stop'), { kind: 'command', text: 'Nothing is running.' });
  } finally {
    await f.close();
  }
});

test('/stop while the parent waits on a synchronous subagent stops both', async () => {
  const f = await startSubagentFixture(hanging);
  try {
    const waiting = f.say('wait for it');
    await f.model.request(isChild);
    assert.equal(await f.say('/stop'), { kind: 'none' });
    const reply = await waiting;
    assert.equal(reply.kind === 'turn' && [reply.outcome, reply.text], ['stopped', 'Stopped.']);
    await eventually(() => ended(f.events).length, 1);
    assert.is(ended(f.events)[0]!.data.status, 'canceled');
  } finally {
    await f.close();
  }
});

test('a runtime that closes cancels running subagents and records why', async () => {
  const f = await startSubagentFixture(hanging);
  let events: Envelope[] = [];
  try {
    await f.say('long job');
    await f.model.request(isChild);
    await f.runtime.close({ reason: 'the gateway is stopping' });
    events = [...f.events];
  } finally {
    await f.close();
  }
  assert.equal(
    ended(events).map((e) => [e.data.status, e.data.reason]),
    [['canceled', 'the gateway is stopping']],
  );
  assert.equal(
    aborted(events).map((e) => e.data.reason),
    ['the gateway is stopping'],
  );
  const stopped = events.filter(
    (e): e is Envelope<'actor.stopped'> => e.type === 'actor.stopped' && e.data.machine === 'subagent',
  );
  assert.equal(
    stopped.map((e) => e.data.reason),
    ['canceled'],
  );
});

test('a closing runtime with drain time lets a task finish instead', async () => {
  let finish: () => void = () => {};
  const gateOpen = new Promise<void>((resolve) => (finish = resolve));
  const f = await startSubagentFixture((r) => {
    if (isChild(r)) return { text: 'finished in time', wait: gateOpen };
    if (r.last === 'tool') return { text: 'ok' };
    return { calls: [{ name: 'spawn', arguments: { task: 'quick' } }] };
  });
  let events: Envelope[] = [];
  try {
    await f.say('go');
    await f.model.request(isChild);
    // The child's answer comes once the closing runtime has settled into draining.
    const closing = f.runtime.close({ drainMs: 5000, reason: 'the gateway is stopping' });
    await busQuiet(f.runtime.bus, { quietMs: 100 });
    finish();
    await closing;
    events = [...f.events];
  } finally {
    await f.close();
  }
  assert.equal(
    ended(events).map((e) => e.data.status),
    ['completed'],
  );
});

test.run();
