// A forward HTTP proxy on a loopback port, as users run one (squid, tinyproxy): plain-http requests arrive in
// absolute form (`GET http://host/path`) and are forwarded; https arrives as `CONNECT host:port` and is tunnelled.
// It records each request line, so a test can tell which requests went through it and how.
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface LoopbackProxy {
  /** `http://127.0.0.1:<port>`, or with `user:password@` when the proxy asks for credentials. */
  url: string;
  /** `CONNECT 127.0.0.1:443` or `POST http://127.0.0.1:80/v1/chat/completions`, in arrival order. */
  seen: string[];
  close(): Promise<void>;
}

export async function startLoopbackProxy(credentials?: { user: string; password: string }): Promise<LoopbackProxy> {
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const expected = credentials
    ? `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString('base64')}`
    : undefined;
  const allowed = (req: IncomingMessage): boolean =>
    expected === undefined || req.headers['proxy-authorization'] === expected;
  const server: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (!allowed(req)) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="loopback"' }).end();
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = request(req.url ?? '', { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`);
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    if (!allowed(req)) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nproxy-authenticate: Basic realm="loopback"\r\n\r\n');
      return;
    }
    const [host, port] = (req.url ?? '').split(':');
    const target = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) target.write(head);
      target.pipe(client);
      client.pipe(target);
    });
    sockets.add(target);
    target.on('close', () => sockets.delete(target));
    target.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const auth = credentials ? `${credentials.user}:${credentials.password}@` : '';
  return {
    url: `http://${auth}127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
