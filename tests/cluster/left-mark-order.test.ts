// A reply part's `left` mark reaches NATS before its request's first byte is written (#40): a process that sends the
// part as a cluster member's outbox does is killed with SIGKILL at the last moment before the request is written
// (undici's `sendHeaders`, right after `onRequestStart`), and the member taking the account over reads the part as
// maybe sent; killed earlier (its `leaving` mark stored, its connection not made yet), it reads the part as never
// sent, and sends it. A real nats-server and a real HTTP server, the process started as `node --import tsx`.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as assert from 'uvu/assert';
import { validateDraft } from '../../bus/index.js';
import { connectCluster } from '../../store/cluster/connection.js';
import { LeftMarks } from '../../store/cluster/left-marks.js';
import { SendMarks } from '../../store/cluster/send-marks.js';
import { accountLog } from '../../store/cluster/stream-names.js';
import { JetStreamEventStore } from '../../store/log/jetstream-store.js';
import { until } from '../support/eventually.js';
import { natsSuite } from '../support/nats-server.js';

const { test, suite } = natsSuite('the order of a part’s left mark and its request');
const FIXTURE = new URL('./fixtures/die-as-request-leaves.ts', import.meta.url).pathname;

/** Runs the fixture to its SIGKILL at `channel`; resolves with the requests the platform got meanwhile. */
async function dieAt(natsUrl: string, account: string, key: string, channel: string): Promise<number> {
  let requests = 0;
  const platform: Server = createServer((_request, response) => {
    requests++;
    response.end('{}');
  });
  platform.listen(0, '127.0.0.1');
  await once(platform, 'listening');
  const url = `http://127.0.0.1:${(platform.address() as AddressInfo).port}/sendMessage`;
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, natsUrl, account, key, url, channel], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let said = '';
    child.stderr.on('data', (chunk: Buffer) => (said += chunk.toString()));
    const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
    assert.is(signal, 'SIGKILL', `the fixture exited with ${code}: ${said}`);
    return requests;
  } finally {
    platform.closeAllConnections();
    await new Promise<void>((resolve) => platform.close(() => resolve()));
  }
}

for (const [channel, mayHaveLeft] of [
  ['sendHeaders', true],
  ['beforeConnect', false],
] as const)
  test(`killed at undici:client:${channel}: the part is read as ${mayHaveLeft ? 'maybe sent' : 'never sent'}`, async ({
    server,
  }) => {
    const nc = await connectCluster(server.url);
    const account = `tg-order-${channel}`;
    const log = await JetStreamEventStore.open(nc, { ...accountLog(account), gateway: 'gw-a' });
    const taker = { id: 'gw-b', marks: LeftMarks.start(nc, 'gw-b') };
    try {
      log.append(
        validateDraft({ type: 'message.sending', data: { channel: account, chat: 'c', send_key: 'k1', part: 0 } }),
      );
      await log.flushed();
      assert.is(await dieAt(server.url, account, 'k1', channel), 0);
      // What the member taking the account over reads. A `left` mark is not awaited: it is waited for. Killed before
      // the connection, the process had its `leaving` mark acknowledged and wrote nothing after it.
      const maybeSent = async (): Promise<boolean> => {
        const marks = await SendMarks.open(nc, account, log, taker, () => true);
        marks.close();
        return marks.before.has('k1');
      };
      if (mayHaveLeft) await until("k1's left mark", async () => ((await maybeSent()) ? true : undefined), 10_000);
      else assert.is(await maybeSent(), false);
    } finally {
      log.close();
      await nc.close();
    }
  });

suite.run();
