// The event log's contract suite, run on a JetStream stream of a real nats-server (the same tests as lmdb and memory).
import type { NatsConnection } from '@nats-io/transport-node';
import { connectCluster } from '../../store/cluster/connection.js';
import { JetStreamEventStore } from '../../store/log/jetstream-store.js';
import { eventStoreContract } from '../log/event-store-suite.js';
import { natsAvailable, startNatsServer, type NatsServer } from '../support/nats-server.js';

let server: NatsServer | undefined;
let streams = 0;

eventStoreContract(
  'jetstream',
  async () => {
    server ??= await startNatsServer();
    const name = `CONTRACT_${++streams}`;
    const options = { stream: name, subjectRoot: `contract.${streams}` };
    const nc: NatsConnection = await connectCluster(server.url);
    let store = await JetStreamEventStore.open(nc, options);
    return {
      get store() {
        return store;
      },
      reopen: async () => {
        store.close();
        store = await JetStreamEventStore.open(nc, options);
        return store;
      },
      dispose: async () => {
        store.close();
        await nc.close();
      },
    };
  },
  { skip: !natsAvailable(), after: async () => server?.close() },
);
