import { connect, createServer, type Server, type Socket } from 'node:net';

/** A TCP proxy in front of the NATS server for one member: `cut` is a network partition, `heal` ends it. */
export interface PartitionProxy {
  url: string;
  /** Drops every connection through the proxy and refuses new ones until `heal`. */
  cut(): void;
  heal(): void;
  close(): Promise<void>;
}

export async function partitionProxy(targetPort: number): Promise<PartitionProxy> {
  const open = new Set<Socket>();
  let cut = false;
  const server: Server = createServer((client) => {
    if (cut) return void client.destroy();
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        open.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `nats://127.0.0.1:${port}`,
    cut: () => {
      cut = true;
      for (const socket of open) socket.destroy();
    },
    heal: () => {
      cut = false;
    },
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
