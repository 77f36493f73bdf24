import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Api, InputFile } from 'grammy';
import { botApiFetch } from '../../adapters/channels/bot-api-fetch.js';
import { ChannelError, type ChannelHooks } from '../../adapters/channels/channel.js';
import { TelegramChannel } from '../../adapters/channels/telegram.js';

const TOKEN = '123:secret';

interface Received {
  method: string | undefined;
  path: string | undefined;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

interface BotApi {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** A Bot API on a loopback port: `answer` gets each request once its body is whole (or, if `early`, at once). */
async function botApi(
  answer: (request: Received, res: ServerResponse, req: IncomingMessage) => void,
  early = false,
): Promise<BotApi> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const request: Received = { method: req.method, path: req.url, headers: req.headers, body: Buffer.alloc(0) };
    received.push(request);
    if (early) return answer(request, res, req);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      request.body = Buffer.concat(chunks);
      answer(request, res, req);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

const me = { id: 7, is_bot: true, first_name: 'Tern', username: 'tern_bot' };

const hooks = (failures: Error[] = []): ChannelHooks => ({
  onMessage() {},
  onConnected() {},
  onFailed: (error) => failures.push(error),
});

async function channelError(promise: Promise<unknown>): Promise<[string, string]> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ChannelError)) throw new Error(`expected a ChannelError, got ${String(error)}`);
  return [error.code, error.message];
}

test('a JSON call goes out as one POST with a JSON body and its answer is read', async () => {
  const api = await botApi((_, res) => json(res, 200, { ok: true, result: { message_id: 42 } }));
  try {
    const channel = new TelegramChannel({ token: TOKEN, baseUrl: api.url });
    assert.is(await channel.send('5', 'héllo'), '42');
    const [request] = api.received;
    assert.equal(
      [
        request?.method,
        request?.path,
        request?.headers['content-type'],
        request?.headers['content-length'],
        request?.body.toString(),
      ],
      [
        'POST',
        '/bot123:secret/sendMessage',
        'application/json',
        '51',
        '{"chat_id":"5","text":"héllo","parse_mode":"HTML"}',
      ],
    );
  } finally {
    await api.close();
  }
});

test('a Bot API error with code 401 is the channel error unauthorized, others are platform', async () => {
  const api = await botApi((request, res) =>
    request.path?.endsWith('/getMe')
      ? json(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' })
      : json(res, 400, { ok: false, error_code: 400, description: 'Bad Request: chat not found' }),
  );
  try {
    const channel = new TelegramChannel({ token: TOKEN, baseUrl: api.url });
    assert.equal(await channelError(channel.start(hooks())), ['unauthorized', 'Bot API getMe: Unauthorized']);
    assert.equal(await channelError(channel.send('5', 'hi')), [
      'platform',
      'Bot API sendMessage: Bad Request: chat not found',
    ]);
  } finally {
    await api.close();
  }
});

test('a refused connection is the channel error network, and its message does not carry the token', async () => {
  const api = await botApi(() => undefined);
  const { url } = api;
  await api.close();
  const channel = new TelegramChannel({ token: TOKEN, baseUrl: url });
  assert.equal(await channelError(channel.start(hooks())), [
    'network',
    `cannot reach the Bot API (connect ECONNREFUSED ${url.slice('http://'.length)})`,
  ]);
});

test(
  'an answer that is not JSON (a proxy error page) is the channel error network, ' + 'naming its status and type',
  async () => {
    const api = await botApi((_, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><body>Bad Gateway</body></html>');
    });
    try {
      const channel = new TelegramChannel({ token: TOKEN, baseUrl: api.url });
      assert.equal(await channelError(channel.send('5', 'hi')), [
        'network',
        'cannot reach the Bot API (the Bot API answered HTTP 502 (text/html) where JSON was expected)',
      ]);
    } finally {
      await api.close();
    }
  },
);

test('a long poll that outlives its timeout is aborted and reported as stalled', async () => {
  const api = await botApi((request, res) => {
    if (request.path?.endsWith('/getMe')) json(res, 200, { ok: true, result: me });
  });
  try {
    const failures: Error[] = [];
    const failed = new Promise<void>((resolve) => {
      const channel = new TelegramChannel({ token: TOKEN, baseUrl: api.url, pollTimeoutSeconds: 0, stallGraceMs: 20 });
      void channel.start({
        ...hooks(failures),
        onFailed: (error) => {
          failures.push(error);
          resolve();
        },
      });
    });
    await failed;
    assert.equal(
      failures.map((error) => [(error as ChannelError).code, error.message]),
      [['stalled', 'getUpdates gave no answer within 0 s']],
    );
  } finally {
    await api.close();
  }
});

test('stopping the channel aborts its long poll: the connection closes and nothing is reported', async () => {
  let pollClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    pollClosed = resolve;
  });
  let polling!: () => void;
  const polled = new Promise<void>((resolve) => {
    polling = resolve;
  });
  const api = await botApi((request, res, req) => {
    if (request.path?.endsWith('/getMe')) return json(res, 200, { ok: true, result: me });
    req.socket.on('close', pollClosed);
    polling();
  });
  try {
    const failures: Error[] = [];
    const channel = new TelegramChannel({ token: TOKEN, baseUrl: api.url });
    await channel.start(hooks(failures));
    await polled;
    await channel.stop();
    await closed;
    assert.equal(
      [api.received.map((r) => r.path), failures],
      [['/bot123:secret/getMe', '/bot123:secret/getUpdates'], []],
    );
  } finally {
    await api.close();
  }
});

test("an upload (a stream body) goes through the channel's fetch and arrives whole", async () => {
  const file = Buffer.alloc(300_000, 'tern');
  const api = await botApi((_, res) => json(res, 200, { ok: true, result: { message_id: 9 } }));
  try {
    const client = new Api(TOKEN, { apiRoot: api.url, fetch: botApiFetch() });
    const sent = await client.sendDocument(5, new InputFile(file, 'notes.txt'));
    const [request] = api.received;
    const boundary = /boundary=(.+)$/.exec(request?.headers['content-type'] ?? '')?.[1] ?? '';
    const body = request?.body ?? Buffer.alloc(0);
    const start = body.indexOf('filename=notes.txt');
    const contentStart = body.indexOf('\r\n\r\n', start) + 4;
    const content = body.subarray(contentStart, body.indexOf(`\r\n--${boundary}`, contentStart));
    assert.equal(
      [
        sent.message_id,
        request?.path,
        request?.headers['transfer-encoding'],
        request?.headers['sec-fetch-mode'],
        content.equals(file),
      ],
      [9, '/bot123:secret/sendDocument', 'chunked', 'cors', true],
    );
  } finally {
    await api.close();
  }
});

test.run();
