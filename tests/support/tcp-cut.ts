// A loopback TCP proxy in front of a server that a test can cut and heal: a network split of one client (its
// connections drop, new ones are refused) while every other client keeps reaching the server.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpCut {
  /** `nats://127.0.0.1:<proxy port>`. */
  url: string;
  /** Drops every connection through the proxy and refuses new ones. */
  cut(): void;
  /** Lets connections through again. */
  heal(): void;
  close(): Promise<void>;
}

export async function tcpCut(targetPort: number): Promise<TcpCut> {
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
    cut() {
      cut = true;
      for (const socket of open) socket.destroy();
    },
    heal() {
      cut = false;
    },
    close: async () => {
      cut = true;
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
