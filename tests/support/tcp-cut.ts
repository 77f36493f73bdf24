// A loopback TCP proxy in front of a server that a test can cut and heal: a network split of one client (its
// connections drop, new ones are refused) while every other client keeps reaching the server.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpCut {
  /** `nats://127.0.0.1:<proxy port>`. */
  url: string;
  /** Drops every connection through the proxy and refuses new ones. */
  cut(): void;
  /**
   * A split only the clients notice: every connection stops carrying bytes either way, the clients' ends are closed
   * and new connections refused, while the server's ends stay open (the server sees no close and keeps the clients'
   * subscriptions, as across a path that drops packets) until `heal` or `close`.
   */
  split(): void;
  /** Lets connections through again (the server's ends a `split` left open are closed now). */
  heal(): void;
  /** From now on the server's bytes reach the clients this much later (a slow link back); 0 forwards them at once. */
  delayAnswers(ms: number): void;
  /**
   * From now on, the first bytes a client sends that contain `text` (a subject), and all it sends after them on that
   * connection, never reach the server (a publish lost on its way, with the connection after it); resolves then.
   * Later connections are not held.
   */
  holdSent(text: string): Promise<void>;
  /**
   * From now on, once a client sends bytes that contain `text`, nothing the server sends on that connection afterwards
   * reaches it (the server took the publish, its answer is lost on the way back); resolves then.
   */
  holdAnswersAfter(text: string): Promise<void>;
  close(): Promise<void>;
}

export async function tcpCut(targetPort: number): Promise<TcpCut> {
  const open = new Set<Socket>();
  /** The server's ends of connections a `split` cut: open, carrying nothing. */
  const dangling = new Set<Socket>();
  const upstreams = new Set<Socket>();
  let cut = false;
  let answerDelayMs = 0;
  let hold: { text: string; held: () => void } | undefined;
  let holdAnswers: { text: string; held: () => void } | undefined;
  const server: Server = createServer((client) => {
    if (cut) return void client.destroy();
    const upstream = connect(targetPort, '127.0.0.1');
    upstreams.add(upstream);
    upstream.on('close', () => upstreams.delete(upstream));
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        open.delete(socket);
        client.destroy();
        if (!dangling.has(upstream)) upstream.destroy();
      });
    }
    let holding = false;
    let holdingAnswers = false;
    client.on('data', (chunk: Buffer) => {
      if (!holding && hold && chunk.includes(hold.text)) {
        holding = true;
        hold.held();
        hold = undefined;
      }
      if (!holding && !dangling.has(upstream)) upstream.write(chunk);
      if (!holdingAnswers && holdAnswers && chunk.includes(holdAnswers.text)) {
        holdingAnswers = true;
        holdAnswers.held();
      }
    });
    // Each chunk waits as long as the delay was when it came: chunks keep their order while the delay stays the same.
    upstream.on('data', (chunk: Buffer) => {
      if (holdingAnswers || dangling.has(upstream)) return;
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
    split() {
      cut = true;
      for (const upstream of upstreams) dangling.add(upstream);
      for (const socket of [...open]) if (!upstreams.has(socket)) socket.destroy();
    },
    heal() {
      cut = false;
      for (const socket of dangling) socket.destroy();
      dangling.clear();
    },
    delayAnswers(ms) {
      answerDelayMs = ms;
    },
    holdSent: (text) =>
      new Promise<void>((resolve) => {
        hold = { text, held: resolve };
      }),
    holdAnswersAfter: (text) =>
      new Promise<void>((resolve) => {
        holdAnswers = { text, held: resolve };
      }),
    close: async () => {
      cut = true;
      for (const socket of [...open, ...dangling]) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
