// A channel account's send marks (#40) on a real nats-server: a part's `leaving` mark is stored before its request is
// dispatched and its `left` mark as the request is written; a member cut off from NATS stores none (its part does not
// leave), so the member taking the account over knows exactly the parts that may have left: those marked `left`.
import * as assert from 'uvu/assert';
import { validateDraft } from '../../bus/index.js';
import { connectCluster } from '../../store/cluster/connection.js';
import { ClusterError } from '../../store/cluster/errors.js';
import { LeftMarks } from '../../store/cluster/left-marks.js';
import { SendMarks } from '../../store/cluster/send-marks.js';
import { accountLog } from '../../store/cluster/stream-names.js';
import { JetStreamEventStore } from '../../store/log/jetstream-store.js';
import { until } from '../support/eventually.js';
import { natsSuite } from '../support/nats-server.js';
import { tcpCut } from '../support/tcp-cut.js';

const { test, suite } = natsSuite('send marks');

/** What `store` then `left` do now: undefined when the server stored the first and the second was taken. */
async function marking(marks: SendMarks, key: string): Promise<Error | undefined> {
  try {
    await marks.store(key);
    marks.left(key);
    return undefined;
  } catch (error) {
    return error as Error;
  }
}

test('a member cut off from NATS refuses to mark a part until it is back; the next holder sees what it marked', async ({
  server,
}) => {
  const proxy = await tcpCut(server.port);
  const nc = await connectCluster(proxy.url);
  const direct = await connectCluster(server.url);
  const account = 'tg-marks';
  const log = await JetStreamEventStore.open(direct, { ...accountLog(account), gateway: 'gw-a' });
  try {
    for (const key of ['k1', 'k2', 'k3', 'k4'])
      log.append(
        validateDraft({ type: 'message.sending', data: { channel: account, chat: 'c', send_key: key, part: 0 } }),
      );
    await log.flushed();
    // What the member taking the account over reads once the server has `key`'s `left` mark (it is not awaited).
    const heir = { id: 'gw-b', marks: LeftMarks.start(direct, 'gw-b') };
    const next = (key: string) =>
      until(
        `${key}'s left mark`,
        async () => {
          const marks = await SendMarks.open(direct, account, log, heir, () => true);
          if (marks.before.has(key)) return marks;
          marks.close();
          return undefined;
        },
        10_000,
      );
    const marks = await SendMarks.open(
      nc,
      account,
      log,
      { id: 'gw-a', marks: LeftMarks.start(nc, 'gw-a') },
      () => true,
    );
    assert.is(await marking(marks, 'k1'), undefined);
    (await next('k1')).close();
    proxy.cut();
    const refused = await until('a mark to be refused', () => marking(marks, 'k2'), 10_000);
    // Refused at once once the client knows the connection is down; not stored if it learns it while waiting.
    assert.ok(refused instanceof ClusterError, String(refused));
    assert.ok(['lease_lost', 'mark_not_stored'].includes((refused as ClusterError).code), String(refused));
    proxy.heal();
    await until(
      'a mark to be taken again',
      async () => ((await marking(marks, 'k3')) === undefined ? true : undefined),
      30_000,
    );
    // k4's request was never written (its member died before): only `leaving` is stored.
    await marks.store('k4');
    marks.close();
    // The member taking the account over: parts k1 and k3 may have left, k2 and k4 never did (they are sent).
    const taker = await next('k3');
    assert.equal([...taker.before].sort(), ['k1', 'k3']);
    taker.close();
  } finally {
    log.close();
    await nc.close();
    await direct.close();
    await proxy.close();
  }
});

suite.run();
