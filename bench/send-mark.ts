// What storing a reply part's send mark before its request costs (#40): the time `SendMarks.store` waits for the
// NATS server's answer, on a local nats-server -js, one part after another as one chat's parts go. Each part sent by
// a cluster member waits this long more than on a single gateway (which writes a line to its journal file).
//
//   node --import tsx bench/send-mark.ts
import { connectCluster } from '../store/cluster/connection.js';
import { LeftMarks } from '../store/cluster/left-marks.js';
import { SendMarks } from '../store/cluster/send-marks.js';
import { accountLog } from '../store/cluster/stream-names.js';
import { JetStreamEventStore } from '../store/log/jetstream-store.js';
import { startNatsServer } from '../tests/support/nats-server.js';
import { percentile, round, type BenchRow } from './row.js';

const PARTS = 300;

/** The median and 95th percentile of a mark's wait, in ms. */
export async function sendMarkMs(): Promise<{ p50: number; p95: number }> {
  const server = await startNatsServer();
  const nc = await connectCluster(server.url);
  try {
    const log = await JetStreamEventStore.open(nc, { ...accountLog('bench-marks'), gateway: 'bench' });
    const marks = await SendMarks.open(
      nc,
      'bench-marks',
      log,
      { id: 'bench', marks: LeftMarks.start(nc, 'bench') },
      () => true,
    );
    const waits: number[] = [];
    for (let part = 0; part < PARTS; part++) {
      const started = performance.now();
      await marks.store(`bench:${part}:0`);
      waits.push(performance.now() - started);
      marks.settle(`bench:${part}:0`);
    }
    marks.close();
    log.close();
    waits.sort((a, b) => a - b);
    return { p50: percentile(waits, 50), p95: percentile(waits, 95) };
  } finally {
    await nc.close();
    await server.close();
  }
}

export async function sendMarkRows(): Promise<BenchRow[]> {
  const { p50, p95 } = await sendMarkMs();
  return [
    { name: 'cluster.send_mark_p50_ms', value: round(p50, 2), unit: 'ms' },
    { name: 'cluster.send_mark_p95_ms', value: round(p95, 2), unit: 'ms' },
  ];
}

if (process.argv[1]?.endsWith('send-mark.ts')) process.stdout.write(`${JSON.stringify(await sendMarkRows())}\n`);
