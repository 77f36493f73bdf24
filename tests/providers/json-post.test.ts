import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { getEventListeners } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { joinedBody } from '../../adapters/http/body-slab.js';
import { postText, TransportError } from '../../adapters/http/json-post.js';

async function serve(answer: (res: ServerResponse, body: string) => void): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => answer(res, Buffer.concat(chunks).toString()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const encodings: Array<[string, (text: string) => Buffer]> = [
  ['gzip', (t) => gzipSync(t)],
  ['deflate', (t) => deflateSync(t)],
  ['br', (t) => brotliCompressSync(t)],
  ['identity', (t) => Buffer.from(t)],
];
for (const [encoding, encode] of encodings) {
  test(`an answer sent with content-encoding ${encoding} is read as its text`, async () => {
    const server = await serve((res, body) => {
      res.writeHead(201, { 'content-type': 'application/json', 'content-encoding': encoding, 'x-echo-length': String(body.length) });
      res.end(encode(`{"echo":${body}}`));
    });
    try {
      const answer = await postText(server.url, { 'content-type': 'application/json' }, '{"a":"é"}', { timeoutMs: 5_000 });
      assert.equal([answer.statusCode, answer.headers['x-echo-length'], answer.body], [201, '9', '{"echo":{"a":"é"}}']);
    } finally {
      await server.close();
    }
  });
}

test('a request that outlasts its time fails as ETIMEDOUT, even after the headers arrived', async () => {
  const server = await serve((res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"choices":');
  });
  try {
    const error = await postText(server.url, {}, '{}', { timeoutMs: 100 }).catch((e: unknown) => e);
    assert.ok(error instanceof TransportError);
    assert.equal([error.code, error.message], ['ETIMEDOUT', "Timeout awaiting 'request' for 100ms"]);
  } finally {
    await server.close();
  }
});

test('a refused connection fails with the system code', async () => {
  const server = await serve((res) => res.end());
  await server.close();
  const error = await postText(server.url, {}, '{}', { timeoutMs: 5_000 }).catch((e: unknown) => e);
  assert.ok(error instanceof TransportError);
  assert.is(error.code, 'ECONNREFUSED');
});

test('a connection closed in the middle of the answer fails as ECONNRESET', async () => {
  const server = await serve((res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    res.write('{"choices":', () => res.destroy());
  });
  try {
    const error = await postText(server.url, {}, '{}', { timeoutMs: 5_000 }).catch((e: unknown) => e);
    assert.ok(error instanceof TransportError);
    assert.is(error.code, 'ECONNRESET');
  } finally {
    await server.close();
  }
});

test('credentials in the URL are sent as Basic authorization, unless the caller sends its own', async () => {
  const server = await serve((res) => res.end(JSON.stringify(String(res.req.headers.authorization))));
  try {
    const url = server.url.replace('http://', 'http://us%40er:pass@');
    const sent: Array<Record<string, string>> = [{}, { Authorization: 'Bearer k' }];
    const answers = await Promise.all(sent.map((headers) => postText(url, headers, '{}', { timeoutMs: 5_000 })));
    assert.equal(answers.map((a) => a.body), [`"Basic ${Buffer.from('us@er:pass').toString('base64')}"`, '"Bearer k"']);
  } finally {
    await server.close();
  }
});

test('headers that differ only in case are sent once, the later one winning', async () => {
  const server = await serve((res) => {
    const names = res.req.rawHeaders.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
    res.end(JSON.stringify([names.filter((name) => name === 'content-type' || name === 'authorization'), res.req.headers['content-type']]));
  });
  try {
    const answer = await postText(server.url, { 'content-type': 'application/json', authorization: 'Bearer key', 'Content-Type': 'text/plain' }, '{}', { timeoutMs: 5_000 });
    assert.equal(JSON.parse(answer.body), [['content-type', 'authorization'], 'text/plain']);
  } finally {
    await server.close();
  }
});

test('a body given as bytes is sent as those bytes', async () => {
  const server = await serve((res, body) => res.end(JSON.stringify(body)));
  try {
    const answer = await postText(server.url, {}, Buffer.from('{"a":"é"}'), { timeoutMs: 5_000 });
    assert.is(answer.body, '"{\\"a\\":\\"é\\"}"');
  } finally {
    await server.close();
  }
});

test('an abort rejects with the abort itself, not a transport failure', async () => {
  const server = await serve((res) => res.writeHead(200).flushHeaders());
  try {
    const controller = new AbortController();
    const pending = postText(server.url, {}, '{}', { signal: controller.signal, timeoutMs: 5_000 });
    controller.abort();
    const error = await pending.catch((e: unknown) => e);
    assert.equal([error instanceof TransportError, (error as Error).name], [false, 'AbortError']);
  } finally {
    await server.close();
  }
});

test('an abort before the request starts rejects with the abort itself and sends nothing', async () => {
  let requests = 0;
  const server = await serve((res) => {
    requests++;
    res.end('{}');
  });
  try {
    const error = await postText(server.url, {}, '{}', { signal: AbortSignal.abort(), timeoutMs: 5_000 }).catch((e: unknown) => e);
    assert.equal([(error as Error).name, (error as { code?: unknown }).code, requests], ['AbortError', 'ABORT_ERR', 0]);
  } finally {
    await server.close();
  }
});

test('a finished request leaves no listener on its signal, whether it was answered or failed', async () => {
  const server = await serve((res) => res.end('{}'));
  const controller = new AbortController();
  try {
    await postText(server.url, {}, '{}', { signal: controller.signal, timeoutMs: 5_000 });
    await server.close();
    await postText(server.url, {}, '{}', { signal: controller.signal, timeoutMs: 5_000 }).catch(() => undefined);
    assert.is(getEventListeners(controller.signal, 'abort').length, 0);
  } finally {
    await server.close();
  }
});

test('requests to different URLs each reach their own server', async () => {
  const first = await serve((res) => res.end('"first"'));
  const second = await serve((res) => res.end('"second"'));
  try {
    const answers = await Promise.all([first.url, second.url, `${first.url}?x=1`].map((url) => postText(url, {}, '{}', { timeoutMs: 5_000 })));
    assert.equal(answers.map((a) => a.body), ['"first"', '"second"', '"first"']);
  } finally {
    await first.close();
    await second.close();
  }
});

/** A server that keeps the exact bytes of each request (framed by its content-length) and answers `{}`. */
async function serveBytes(): Promise<{ url: string; port: number; requests: string[]; close: () => Promise<void> }> {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      const headEnd = pending.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/.exec(pending.toString('latin1', 0, Math.max(headEnd, 0)));
      if (headEnd < 0 || length === null || pending.length < headEnd + 4 + Number(length[1])) return;
      requests.push(pending.toString('utf8'));
      pending = Buffer.alloc(0);
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
    port,
    requests,
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

test('a body from the body slabs goes out as the head and then its bytes, exactly, however often it is sent', async () => {
  const server = await serveBytes();
  try {
    const headers = { 'content-type': 'application/json', authorization: 'Bearer k' };
    const first = joinedBody(['{"a":', '"é"'], Buffer.from(',"b":1}'));
    const second = joinedBody(['{"c":2'], Buffer.from('}'));
    for (const body of [second, first, second]) await postText(server.url, headers, body, { timeoutMs: 5_000 });
    const request = (body: string) => `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1:${server.port}\r\ncontent-type: application/json\r\n`
      + `authorization: Bearer k\r\nconnection: keep-alive\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    assert.equal(server.requests, [request('{"c":2}'), request('{"a":"é","b":1}'), request('{"c":2}')]);
    assert.equal([first.toString(), second.toString()], ['{"a":"é","b":1}', '{"c":2}']);
  } finally {
    await server.close();
  }
});

test('the same headers object sent with bodies of different lengths gives each its own content-length', async () => {
  const server = await serveBytes();
  try {
    const headers = { 'x-kind': 'same' };
    for (const body of ['{}', '{"a":1}', Buffer.from('[1,2,3]')]) await postText(server.url, headers, body, { timeoutMs: 5_000 });
    assert.equal(server.requests.map((request) => /content-length: (\d+)/.exec(request)?.[1]), ['2', '7', '7']);
  } finally {
    await server.close();
  }
});

test.run();
