import { createRequire } from 'node:module';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateDraft, type Envelope, type EventDraft } from '../../bus/index.js';
import { EventLog } from '../../store/log/event-log.js';
import type { EventStore, LogQuery } from '../../store/log/event-store.js';
import { readHistory } from '../../store/log/history.js';
import { tempHome } from '../support/temp-home.js';

const { open } = createRequire(import.meta.url)('lmdb') as typeof import('lmdb');

const settings = {
  model_name: 'fast',
  stream: false,
  max_tool_iterations: 5,
  loop_detection: { enabled: false, repeat_threshold: 3, critical_threshold: 5, window_size: 10 },
};
const keys = { agent: 'main', session: 's-long' };

/** One turn of the long session: its start, a tool call in between (not history), its reply. */
function turn(i: number): EventDraft[] {
  const ids = { ...keys, turn: `t${i}` };
  return [
    {
      ...ids,
      type: 'turn.started',
      data: {
        message_id: `m${i}`,
        channel: 'cli',
        chat: 'direct:me',
        text: `question ${i}`,
        session_key: 'key-long',
        settings,
      },
    },
    {
      ...ids,
      type: 'prompt.built',
      data: { system: SYSTEM, messages: [{ role: 'user', content: `question ${i}` }], tools: TOOLS },
    },
    { ...ids, type: 'tool.requested', data: { call_id: `c${i}`, name: 'todo', arguments: { action: 'read' } } },
    { ...ids, type: 'turn.completed', data: { reply: `answer ${i}`, iterations: 2 } },
  ];
}

const SYSTEM = `You are a helpful assistant. ${'Mind the rules. '.repeat(500)}`;
const TOOLS = Array.from({ length: 19 }, (_, i) => JSON.stringify({ name: `tool_${i}`, description: 'x'.repeat(800) }));

/** The log as the session's history loader uses it, counting the events it hands out. */
function counting(log: EventStore): { store: EventStore; read: number } {
  const counter = { read: 0, store: log };
  counter.store = new Proxy(log, {
    get(target, property, receiver) {
      if (property !== 'iterate') return Reflect.get(target, property, receiver);
      return function* (query?: LogQuery): Generator<Envelope> {
        for (const event of target.iterate(query)) {
          counter.read++;
          yield event;
        }
      };
    },
  });
  return counter;
}

test("a 5,000-turn session's history after a restart is read back to its last checkpoint only", async () => {
  const home = tempHome();
  let log = EventLog.open(home.sessions);
  try {
    let checkpointSeq = 0;
    for (let i = 1; i <= 5000; i++) {
      for (const draft of turn(i)) log.append(validateDraft(draft));
      // Another session's turns interleave; they are never read for this one.
      if (i % 10 === 0)
        log.append(
          validateDraft({
            agent: 'main',
            session: 's-other',
            turn: `o${i}`,
            type: 'turn.completed',
            data: { reply: 'other', iterations: 1 },
          }),
        );
      // A checkpoint every 20 turns, as the summarizer writes them: the summary and the newest messages it keeps.
      if (i % 20 === 0) {
        const kept = [i - 1, i].flatMap((k) => [
          { role: 'user' as const, content: `question ${k}` },
          { role: 'assistant' as const, content: `answer ${k}`, tool_calls: [] },
        ]);
        checkpointSeq = log.append(
          validateDraft({ ...keys, type: 'session.compacted', data: { summary: `turns 1 to ${i}`, messages: kept } }),
        ).seq;
      }
    }
    for (let i = 5001; i <= 5003; i++) for (const draft of turn(i)) log.append(validateDraft(draft));
    await log.flushed();
    log.close();
    log = EventLog.open(home.sessions);

    const counter = counting(log);
    const history = readHistory(counter.store, 's-long');
    assert.is(history.summary, 'turns 1 to 5000');
    assert.equal(
      history.messages.map((m) => m.message.content),
      [
        'question 4999',
        'answer 4999',
        'question 5000',
        'answer 5000',
        'question 5001',
        'answer 5001',
        'question 5002',
        'answer 5002',
        'question 5003',
        'answer 5003',
      ],
    );
    assert.equal(
      history.messages.slice(0, 4).map((m) => m.seq),
      [checkpointSeq, checkpointSeq, checkpointSeq, checkpointSeq],
    );
    // The starts and ends of the three turns after the checkpoint, and the checkpoint: prompts and tool traffic share
    // the session's index but are passed over by type, before the blobs they name are read.
    assert.is(counter.read, 3 * 2 + 1);
  } finally {
    log.close();
    home.remove();
  }
});

test("a session's history is read without its prompts: with their blobs gone it still loads", async () => {
  const home = tempHome();
  let log = EventLog.open(home.sessions);
  try {
    for (let i = 1; i <= 3; i++) for (const draft of turn(i)) log.append(validateDraft(draft));
    await log.flushed();
    log.close();
    // The blobs of the prompts (system prompt, tools, history list), as a damaged table would lose them; the turns'
    // settings stay.
    const root = open({ path: home.sessions, maxDbs: 8 });
    const blobs = root.openDB<unknown, Buffer>({ name: 'blobs', keyEncoding: 'binary' });
    const gone = [...blobs.getRange({})].filter(({ value }) => !(value as { model_name?: string }).model_name);
    assert.is(gone.length, 2 + 3);
    await root.transaction(() => {
      for (const { key } of gone) void blobs.remove(key);
    });
    await root.close();
    log = EventLog.open(home.sessions);

    const history = readHistory(log, 's-long');
    assert.equal(
      history.messages.map((m) => m.message.content),
      ['question 1', 'answer 1', 'question 2', 'answer 2', 'question 3', 'answer 3'],
    );
    assert.throws(() => log.read({ session: 's-long', type: 'prompt.built' }), /has no blob/);
  } finally {
    log.close();
    home.remove();
  }
});

test.run();
