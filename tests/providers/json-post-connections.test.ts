import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidHeaderError } from '../../adapters/http/http1-request.js';
import { postText, TransportError } from '../../adapters/http/json-post.js';
import { tempHome } from '../support/temp-home.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

// A self-signed certificate for 127.0.0.1 (made once with openssl, valid until 2126): trusted by nobody, so
// only a process told to trust it (NODE_EXTRA_CA_CERTS) accepts it.
const KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg09o/8ZdListCmkba
QpyKKOykmQXqKNmPh2skKIGIPq6hRANCAATAT0Nmy2CEykcVYcYU0mYBKQFsnnRI
s1/sm0V4f2beRfi/o/PDT0cBsjkjTDT/6JnrczazIrSw3cqShWwEFFiW
-----END PRIVATE KEY-----`;
const CERT = `-----BEGIN CERTIFICATE-----
MIIBkDCCATagAwIBAgIUZ7uMMLgoKMcHU8gj1rYZ62g+ADowCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyMjEyNTk1MloYDzIxMjYxMDI5
MTI1OTUyWjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAATAT0Nmy2CEykcVYcYU0mYBKQFsnnRIs1/sm0V4f2beRfi/o/PDT0cB
sjkjTDT/6JnrczazIrSw3cqShWwEFFiWo2QwYjAdBgNVHQ4EFgQUfxF6bUjlJfgw
EbnXeuvnux2aTSkwHwYDVR0jBBgwFoAUfxF6bUjlJfgwEbnXeuvnux2aTSkwDwYD
VR0TAQH/BAUwAwEB/zAPBgNVHREECDAGhwR/AAABMAoGCCqGSM49BAMCA0gAMEUC
ICcaEyOAJ3cCKhleX71Nl+kcw9DiGQE7wc4hX1ubHQ24AiEAs/Owcw8/5WvxB8bY
ffXlNPPh18ivLssyHj/Feyt6E2c=
-----END CERTIFICATE-----`;

interface Served {
  url: string;
  /** Connections the server accepted so far. */
  connections: () => number;
  close: () => Promise<void>;
}

async function listen(server: Server | NetServer, scheme: string): Promise<Served> {
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => {
      if ('closeAllConnections' in server) server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const serve = (answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<Served> => listen(createServer((req, res) => {
  req.resume();
  req.on('end', () => answer(req, res));
}), 'http');

/** A server that answers each request with `raw` as it stands, then ends the connection. */
function serveRaw(raw: string): Promise<Served> {
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.once('data', () => socket.end(raw));
  });
  return listen(server, 'http').then((served) => ({
    ...served,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return served.close();
    },
  }));
}

const post = (url: string, headers: Record<string, string> = {}) => postText(url, headers, '{}', { timeoutMs: 5_000 });

test('requests one after another share one keep-alive connection', async () => {
  const server = await serve((_, res) => res.end('"ok"'));
  try {
    for (let i = 0; i < 3; i++) await post(server.url);
    assert.is(server.connections(), 1);
  } finally {
    await server.close();
  }
});

test('requests at the same time each get a connection, which later requests reuse', async () => {
  const server = await serve((_, res) => res.end('"ok"'));
  try {
    await Promise.all([post(server.url), post(server.url), post(server.url)]);
    await Promise.all([post(server.url), post(server.url), post(server.url)]);
    assert.is(server.connections(), 3);
  } finally {
    await server.close();
  }
});

test('a connection the server keeps too briefly to reuse safely is not reused', async () => {
  const server = await serve((_, res) => {
    res.setHeader('keep-alive', 'timeout=1');
    res.end('"ok"');
  });
  try {
    await post(server.url);
    await post(server.url);
    assert.is(server.connections(), 2);
  } finally {
    await server.close();
  }
});

test('each request on a kept connection has its own time limit: one answered in time, the next that outlasts it fails as ETIMEDOUT', async () => {
  let requests = 0;
  const server = await serve((_, res) => {
    if (++requests === 1) res.end('"ok"');
    else res.writeHead(200, { 'content-type': 'application/json' }).write('{"choices":');
  });
  try {
    const first = await postText(server.url, {}, '{}', { timeoutMs: 500 });
    const error = await postText(server.url, {}, '{}', { timeoutMs: 500 }).catch((e: unknown) => e);
    assert.ok(error instanceof TransportError);
    assert.equal([first.body, error.code, error.message, server.connections()], ['"ok"', 'ETIMEDOUT', "Timeout awaiting 'request' for 500ms", 1]);
  } finally {
    await server.close();
  }
});

test('a connection left idle past the time limit of the request it carried still carries the next one', async () => {
  const server = await serve((_, res) => res.end('"ok"'));
  try {
    await postText(server.url, {}, '{}', { timeoutMs: 500 });
    await new Promise((resolve) => setTimeout(resolve, 600));
    const answer = await postText(server.url, {}, '{}', { timeoutMs: 500 });
    assert.equal([answer.body, server.connections()], ['"ok"', 1]);
  } finally {
    await server.close();
  }
});

test('a chunked answer written in pieces is read whole', async () => {
  const server = await serve((_, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"choices":');
    res.write('[]');
    res.end('}');
  });
  try {
    assert.is((await post(server.url)).body, '{"choices":[]}');
  } finally {
    await server.close();
  }
});

test('an answer whose body runs to the end of the connection is read whole', async () => {
  const server = await serveRaw('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n{"a":1}');
  try {
    const answers = [await post(server.url), await post(server.url)];
    assert.equal([answers.map((a) => a.body), server.connections()], [['{"a":1}', '{"a":1}'], 2]);
  } finally {
    await server.close();
  }
});

test('an answer that is not HTTP fails as a transport failure that names it', async () => {
  const server = await serveRaw('SSH-2.0-OpenSSH_9.6\r\n\r\n');
  try {
    const error = await post(server.url).catch((e: unknown) => e);
    assert.ok(error instanceof TransportError);
    assert.equal([error.code, error.message], ['HPE_INVALID_ANSWER', 'invalid status line: "SSH-2.0-OpenSSH_9.6"']);
  } finally {
    await server.close();
  }
});

const badHeaders: Array<[string, Record<string, string>, string]> = [
  ['a header name with a space', { 'x bad': '1' }, 'ERR_INVALID_HTTP_TOKEN'],
  ['a header value with a line break', { 'x-bad': 'a\r\nx-injected: 1' }, 'ERR_INVALID_CHAR'],
  ['a header that frames the request', { 'Content-Length': '2' }, 'ERR_INVALID_HTTP_TOKEN'],
];
for (const [name, headers, code] of badHeaders) {
  test(`${name} is refused before anything is sent`, async () => {
    const server = await serve((_, res) => res.end('"ok"'));
    try {
      const error = await post(server.url, headers).catch((e: unknown) => e);
      assert.ok(error instanceof InvalidHeaderError);
      assert.equal([error.code, server.connections()], [code, 0]);
    } finally {
      await server.close();
    }
  });
}

async function serveTls(): Promise<Served> {
  const server = createTlsServer({ key: KEY, cert: CERT }, (req, res) => {
    req.resume();
    req.on('end', () => res.end(JSON.stringify({ protocol: 'https', host: req.headers.host })));
  });
  return listen(server, 'https');
}

test('https checks the server certificate: one nobody trusts fails with its code', async () => {
  const server = await serveTls();
  try {
    const error = await post(server.url).catch((e: unknown) => e);
    assert.ok(error instanceof TransportError);
    assert.is(error.code, 'DEPTH_ZERO_SELF_SIGNED_CERT');
  } finally {
    await server.close();
  }
});

test('a process that trusts the certificate is answered over https, and its idle connection does not keep it running', async () => {
  const server = await serveTls();
  const home = tempHome();
  try {
    const ca = join(home.home, 'ca.pem');
    writeFileSync(ca, CERT);
    const script = `import { postText } from './adapters/http/json-post.ts';
      const answer = await postText(${JSON.stringify(server.url)}, {}, '{}', { timeoutMs: 5000 });
      process.stdout.write(answer.body);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root, env: { ...process.env, NODE_EXTRA_CA_CERTS: ca }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    const port = new URL(server.url).port;
    assert.equal([code, output], [0, JSON.stringify({ protocol: 'https', host: `127.0.0.1:${port}` })]);
  } finally {
    await server.close();
    home.remove();
  }
});

test.run();
