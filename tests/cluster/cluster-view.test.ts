// The cluster-wide view (`ClusterLogView`) over real JetStream streams: the backlogs of every member's and channel
// account's stream merged by time and numbered from 1, each event naming its gateway and stream; later events taken as
// they come; a stream created later found; read-only.
import * as assert from 'uvu/assert';
import { validateDraft, type Envelope, type EventDraft } from '../../bus/index.js';
import { connectCluster } from '../../store/cluster/connection.js';
import { accountLog, memberLog } from '../../store/cluster/stream-names.js';
import { ClusterLogView } from '../../store/log/cluster-view.js';
import { JetStreamEventStore } from '../../store/log/jetstream-store.js';
import { chunk } from '../support/events.js';
import { until } from '../support/eventually.js';
import { natsSuite } from '../support/nats-server.js';

const { test, suite } = natsSuite('the cluster-wide view of the log');

const at = (draft: EventDraft, time: number) => validateDraft({ ...draft, at: time });

test(
  'backlogs merged by time, renumbered, each naming its gateway and stream; ' +
    'new events and new streams follow; appends refused',
  async ({ server }) => {
    const nc = await connectCluster(server.url);
    const member = await JetStreamEventStore.open(nc, { ...memberLog('node-a'), gateway: 'node-a' });
    const account = await JetStreamEventStore.open(nc, { ...accountLog('tg1'), gateway: 'node-b' });
    member.append(at(chunk('s-a', 't', 'a1'), 1_000));
    account.append(at(chunk('s-b', 't', 'b1'), 1_500));
    member.append(at(chunk('s-a', 't', 'a2'), 2_000));
    account.append(at(chunk('s-b', 't', 'b2'), 2_500));
    await Promise.all([member.flushed(), account.flushed()]);
    const view = await ClusterLogView.open(nc, { discoverMs: 100 });
    const arrived: Envelope[] = [];
    view.events$.subscribe((e) => arrived.push(e));
    try {
      const brief = (e: Envelope) => [e.seq, e.gateway, e.stream, (e.data as { delta: string }).delta];
      assert.equal(view.read().map(brief), [
        [1, 'node-a', 'TERN_GW_node-a', 'a1'],
        [2, 'node-b', 'TERN_CH_tg1', 'b1'],
        [3, 'node-a', 'TERN_GW_node-a', 'a2'],
        [4, 'node-b', 'TERN_CH_tg1', 'b2'],
      ]);
      assert.equal(
        view.read({ session: 's-b' }).map((e) => e.seq),
        [2, 4],
      );
      assert.equal(view.sessionIds(''), ['s-a', 's-b']);

      account.append(at(chunk('s-b', 't', 'b3'), 3_000));
      const late = await JetStreamEventStore.open(nc, { ...accountLog('tg2'), gateway: 'node-c' });
      late.append(at(chunk('s-c', 't', 'c1'), 3_500));
      await Promise.all([account.flushed(), late.flushed()]);
      await until(
        'the new event and the new stream',
        () => (view.lastSeq === 6 ? true : undefined),
        10_000,
        () => view.read().map(brief),
      );
      // Taken as they came (the live event or the new stream's backlog first), numbered on.
      assert.equal(
        arrived.map((e) => e.seq),
        [5, 6],
      );
      assert.equal(arrived.map((e) => brief(e).slice(1)).sort(), [
        ['node-b', 'TERN_CH_tg1', 'b3'],
        ['node-c', 'TERN_CH_tg2', 'c1'],
      ]);
      assert.equal(
        view.read({ after: 4 }).map((e) => e.seq),
        [5, 6],
      );
      assert.throws(
        () => view.append(validateDraft(chunk('s', 't'))),
        (e: unknown) => (e as { code?: string }).code === 'log_write_failed',
      );
      late.close();
    } finally {
      view.close();
      member.close();
      account.close();
      await nc.close();
    }
  },
);

suite.run();
