// The bus contract suite on the NATS bus, each bus on its own connection to a real nats-server (the same tests as
// the in-process bus).
import { connectCluster } from '../../store/cluster/connection.js';
import { NatsBus } from '../../store/cluster/nats-bus.js';
import type { MemoryEventStore } from '../../store/log/memory-event-store.js';
import { busContract } from '../bus/bus-suite.js';
import { natsAvailable, startNatsServer, type NatsServer } from '../support/nats-server.js';

let server: NatsServer | undefined;
let count = 0;
/** One set of streams per log: buses over the same log are processes of one cluster. */
const clusters = new WeakMap<MemoryEventStore, number>();
let gateways = 0;

busContract(
  'nats',
  async (log, redact) => {
    server ??= await startNatsServer();
    let n = clusters.get(log);
    if (n === undefined) clusters.set(log, (n = ++count));
    const options = { workStream: `WORK_${n}`, workRoot: `w${n}`, busRoot: `b${n}`, ackWaitMs: 2_000, ...(redact ? { redact } : {}) };
    const url = server.url;
    const nc = await connectCluster(url);
    const bus = await NatsBus.open(nc, { ...options, gateway: `gw${++gateways}` }, log);
    const peers: Array<() => Promise<void>> = [];
    return {
      bus,
      log,
      async peer() {
        const other = await connectCluster(url);
        const peer = await NatsBus.open(other, { ...options, gateway: `gw${++gateways}` }, log);
        peers.push(async () => {
          peer.complete();
          await other.close();
        });
        return peer;
      },
      async dispose() {
        bus.complete();
        await nc.close();
        for (const close of peers) await close();
      },
    };
  },
  { skip: !natsAvailable(), after: async () => server?.close() },
);
