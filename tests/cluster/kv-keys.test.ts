// Listing a lease or member bucket while entries come, go and expire (#27): `kv.keys()` from @nats-io/kv could wait
// for ever for an entry that expired or was deleted after its listing began (the cluster status test stood still for
// minutes on one; a loop of 120 listings under churn caught it once); the listing now reads the bucket stream's
// subjects in one request.
import { setTimeout as sleep } from 'node:timers/promises';
import * as assert from 'uvu/assert';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectCluster } from '../../store/cluster/connection.js';
import { ttlBucket } from '../../store/cluster/kv-bucket.js';
import { bucketKeys } from '../../store/cluster/subject-counts.js';
import { Leases, listLeases } from '../../store/cluster/leases.js';
import { until } from '../support/eventually.js';
import { natsSuite } from '../support/nats-server.js';

const { test, suite } = natsSuite<{ nc: NatsConnection }>('KV bucket listing');

suite.before.each(async (context) => {
  context.nc = await connectCluster(context.server.url);
});
suite.after.each(async (context) => {
  await context.nc.close();
});

test('the keys written, a deleted one (its entry says DEL) included, an expired one gone', async ({ nc }) => {
  const kv = await ttlBucket(nc, 'keys_exact', 700);
  await kv.put('a.one', '1');
  await kv.put('b.two', '2');
  await kv.put('c.gone', '3');
  await kv.delete('c.gone');
  assert.equal(await bucketKeys(nc, 'keys_exact'), ['a.one', 'b.two', 'c.gone']);
  // b.two is written again and again, as a holder renews its entry, until the others have expired.
  const listed = await until(
    'a.one and c.gone to expire',
    async () => {
      await kv.put('b.two', '2 again');
      const keys = await bucketKeys(nc, 'keys_exact');
      return keys.includes('a.one') || keys.includes('c.gone') ? undefined : keys;
    },
    10_000,
  );
  assert.equal(listed, ['b.two']);
});

test('an empty bucket lists nothing; a bucket that does not exist is an error', async ({ nc }) => {
  await ttlBucket(nc, 'keys_empty', 5_000);
  assert.equal(await bucketKeys(nc, 'keys_empty'), []);
  const absent = await bucketKeys(nc, 'keys_absent').then(
    () => 'listed',
    (error: Error) => error.message,
  );
  assert.match(absent, /stream not found/);
});

test('leases listed while others are taken, released and expire: every listing ends, with only live leases', async ({
  nc,
}) => {
  const holder = await Leases.open(nc, { gateway: 'gw-a', bucket: 'keys_churn', ttlMs: 600, heartbeatMs: 100 });
  const writer = await ttlBucket(nc, 'keys_churn', 600);
  let running = true;
  const churn = (async () => {
    for (let i = 0; running; i++) {
      await writer.put(
        `session.${Buffer.from(`s${i}`).toString('base64url')}`,
        JSON.stringify({ gateway: 'gw-b', at: Date.now() }),
      );
      if (i % 3 === 0) await writer.delete(`session.${Buffer.from(`s${i}`).toString('base64url')}`);
      await sleep(20);
    }
  })();
  try {
    assert.is(await holder.acquire('channel', 'tg1'), true);
    for (let round = 0; round < 100; round++) {
      const listed = await Promise.race([
        listLeases(nc, 'keys_churn'),
        sleep(3_000).then(() => 'no answer within 3 s' as const),
      ]);
      assert.type(listed, 'object', `round ${round}: ${String(listed)}`);
      const leases = listed as Awaited<ReturnType<typeof listLeases>>;
      assert.ok(
        leases.some((l) => l.kind === 'channel' && l.id === 'tg1' && l.gateway === 'gw-a'),
        `round ${round}`,
      );
      for (const lease of leases.filter((l) => l.kind === 'session'))
        assert.ok(Date.now() - lease.renewedAt < 1_500, `round ${round}: ${lease.id} listed long after it expired`);
      await sleep(15);
    }
  } finally {
    running = false;
    await churn;
    await holder.close();
  }
});

suite.run();
