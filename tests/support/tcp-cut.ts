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
  /** From now on the server's bytes reach the clients this much later (a slow link back); 0 forwards them at once. */
  delayAnswers(ms: number): void;
  close(): Promise<void>;
}

export async function tcpCut(targetPort: number): Promise<TcpCut> {
  const open = new Set<Socket>();
  let cut = false;
  let answerDelayMs = 0;
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
    // Each chunk waits as long as the delay was when it came: chunks keep their order while the delay stays the same.
    upstream.on('data', (chunk: Buffer) => {
      if (answerDelayMs === 0) client.write(chunk);
      else setTimeout(() => client.write(chunk), answerDelayMs);
    });
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
    delayAnswers(ms) {
      answerDelayMs = ms;
    },
    close: async () => {
      cut = true;
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
