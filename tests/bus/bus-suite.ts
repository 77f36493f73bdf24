// The contract of a bus (`Bus`): an implementation runs these tests through `busContract`. Delivery of work may be
// asynchronous, so every expectation waits for its items.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Observable } from 'rxjs';
import type { Bus, BusOptions, EventDraft } from '../../bus/index.js';

type Redact = NonNullable<BusOptions['redact']>;
import { MemoryEventStore } from '../../store/log/memory-event-store.js';

export interface BusUnderTest {
  bus: Bus;
  log: MemoryEventStore;
  dispose(): void | Promise<void>;
}

/** Opens a bus over `log`, with the redaction hook given. */
export type OpenBus = (log: MemoryEventStore, redact?: Redact) => Promise<BusUnderTest>;

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

const reply = (id: string, text: string, target: boolean): EventDraft<'reply.requested'> => ({
  type: 'reply.requested',
  agent: 'main',
  session: 's1',
  data: {
    message_id: id,
    outcome: 'command',
    text,
    key: `k:${id}`,
    ...(target ? { reply: { channel: 'tg', chat: 'direct:1', reply_to: '1' } } : {}),
  },
});

/** Work published after everything else, to see what came before it: see `collect`. */
interface Fence<R> {
  publish(): void;
  is(item: R): boolean;
}

/**
 * Collects what `source` emits until `count` items came (failing after `limitMs`). With a fence, it then publishes
 * the fence and collects until the fence arrives, so work delivered that should not have been shows up before the
 * fence, in what is returned, however slowly the bus delivers.
 */
async function collect<T, R>(
  source: Observable<T>,
  map: (item: T) => R,
  count: number,
  fence?: Fence<R>,
  limitMs = 10_000,
): Promise<R[]> {
  const got: R[] = [];
  let arrived: () => void = () => undefined;
  let fenced = false;
  const enough = (): boolean => (fence ? got.some((item) => fence.is(item)) : got.length >= count);
  const fenceOnce = (): void => {
    if (!fence || fenced || got.length < count) return;
    fenced = true;
    fence.publish();
  };
  const subscription = source.subscribe((item) => {
    got.push(map(item));
    fenceOnce();
    if (enough()) arrived();
  });
  try {
    fenceOnce();
    if (!enough()) {
      await new Promise<void>((resolve, reject) => {
        const missing = `${count} items${fence ? ' and the fence' : ''}`;
        const fail = () => reject(new Error(`collected ${JSON.stringify(got)}, not ${missing}, in ${limitMs} ms`));
        const limit = setTimeout(fail, limitMs);
        arrived = () => {
          clearTimeout(limit);
          resolve();
        };
      });
    }
  } finally {
    subscription.unsubscribe();
  }
  return fence ? got.filter((item) => !fence.is(item)) : got;
}

export function busContract(name: string, open: OpenBus): void {
  const test = suite<{ under: BusUnderTest[] }>(`bus contract: ${name}`);
  test.before.each((ctx) => {
    ctx.under = [];
  });
  test.after.each(async (ctx) => {
    for (const under of ctx.under) await under.dispose();
  });
  const start = async (ctx: { under: BusUnderTest[] }, redact?: Redact): Promise<BusUnderTest> => {
    const under = await open(new MemoryEventStore(), redact);
    ctx.under.push(under);
    return under;
  };

  test(
    'publish validates, applies defaults, stamps seq in order, ' + 'logs, and every observer sees each event in order',
    async (ctx) => {
      const { bus, log } = await start(ctx);
      const seen: Array<[number, string]> = [];
      bus.events$.subscribe((e) => seen.push([e.seq, e.type]));
      const first = bus.publish({ type: 'gateway.stopping', data: {} });
      const second = bus.publish(routed('m1'));
      assert.equal([first.seq, second.seq], [1, 2]);
      assert.equal(seen, [
        [1, 'gateway.stopping'],
        [2, 'message.routed'],
      ]);
      assert.equal(
        log.read().map((e) => e.seq),
        [1, 2],
      );
      assert.throws(
        () => bus.publish({ type: 'message.routed', data: { message_id: 1 } } as unknown as EventDraft),
        /message_id/,
      );
      assert.throws(() => bus.publish({ type: 'no.such', data: {} } as unknown as EventDraft), /unknown event type/);
      assert.is(seen.length, 2, 'a refused event reaches nobody');
    },
  );

  test('on, matching and select deliver only what they name', async (ctx) => {
    const { bus } = await start(ctx);
    const on: string[] = [];
    const matching: string[] = [];
    const selected: number[] = [];
    bus.on('message.routed').subscribe((e) => on.push(e.data.message_id));
    bus.matching('gateway.*').subscribe((e) => matching.push(e.type));
    bus.select({ session: 's2' }).subscribe((e) => selected.push(e.seq));
    bus.publish(routed('m1'));
    bus.publish({ type: 'gateway.stopping', data: {} });
    bus.publish(routed('m2', 's2'));
    assert.equal([on, matching, selected], [['m1', 'm2'], ['gateway.stopping'], [3]]);
  });

  test(
    'work published before its group has a consumer waits for it, ' + 'then goes to that consumer once, in order',
    async (ctx) => {
      const { bus } = await start(ctx);
      bus.publish(routed('m1'));
      bus.publish(routed('m2'));
      await bus.durable();
      const fence = { publish: () => bus.publish(routed('fence')), is: (id: string) => id === 'fence' };
      const got = collect(bus.work('sessions'), (e) => e.data.message_id, 3, fence);
      bus.publish(routed('m3'));
      assert.equal(await got, ['m1', 'm2', 'm3']);
      bus.publish(routed('m4'));
      await bus.durable();
      assert.equal(
        await collect(bus.work('sessions'), (e) => e.data.message_id, 1),
        ['m4'],
        'work published between two consumers waits for the next one',
      );
    },
  );

  test('a work group has one consumer per process; a reply without a target is no work for the outbox', async (ctx) => {
    const { bus } = await start(ctx);
    const sessions = bus.work('sessions').subscribe(() => undefined);
    let refused: unknown;
    bus.work('sessions').subscribe({ error: (e: unknown) => (refused = e) });
    assert.match(String(refused), /already has a consumer/);
    sessions.unsubscribe();
    const fence = { publish: () => bus.publish(reply('fence', 'fence', true)), is: (text: string) => text === 'fence' };
    const replies = collect(bus.work('outbox'), (e) => e.data.text, 1, fence);
    bus.publish(reply('m1', 'hi back', true));
    bus.publish(reply('m2', 'for the asker', false));
    assert.equal(await replies, ['hi back']);
  });

  test(
    'requeued work reaches the consumer before work published after it, ' + 'and observers never see it again',
    async (ctx) => {
      const log = new MemoryEventStore();
      const earlier = await open(log);
      ctx.under.push(earlier);
      const left = earlier.bus.publish(reply('left', 'left over', true));
      // The earlier run's own copy of the work is gone (its process died after taking it).
      assert.equal(await collect(earlier.bus.work('outbox'), (e) => e.data.text, 1), ['left over']);
      await earlier.dispose();
      ctx.under.pop();
      const under = await open(log);
      ctx.under.push(under);
      const seen: number[] = [];
      under.bus.events$.subscribe((e) => seen.push(e.seq));
      under.bus.requeue([left]);
      under.bus.publish(reply('new', 'new', true));
      await under.bus.durable();
      assert.equal(await collect(under.bus.work('outbox'), (e) => `${e.seq}:${e.data.text}`, 2), [
        '1:left over',
        '2:new',
      ]);
      assert.equal(seen, [2]);
      assert.is(log.read().length, 2, 'requeueing appends nothing');
    },
  );

  test(
    'the redaction hook rewrites the data of every ' + 'validated draft before it is logged and delivered',
    async (ctx) => {
      const { bus, log } = await start(
        ctx,
        <D>(data: D): D => JSON.parse(JSON.stringify(data).replaceAll('sk-secret-1234', '[redacted]')) as D,
      );
      const delivered: string[] = [];
      bus.on('tool.completed').subscribe((e) => delivered.push(e.data.content));
      const envelope = bus.publish({
        type: 'tool.completed',
        data: { call_id: 'c', name: 'exec', ok: true, content: 'key=sk-secret-1234' },
      });
      await bus.durable();
      assert.equal(
        [envelope.data.content, delivered, log.get(1)?.type === 'tool.completed' && log.get(1)?.data],
        ['key=[redacted]', ['key=[redacted]'], { call_id: 'c', name: 'exec', ok: true, content: 'key=[redacted]' }],
      );
    },
  );

  test.run();
}
