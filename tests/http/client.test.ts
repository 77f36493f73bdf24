// The one outbound client (adapters/http/client.ts) as the providers use it: proxies from the environment and per
// model entry, NO_PROXY, the answer size cap, the time limits apart, and a dead model server within the budget.
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { send, TransportError } from '../../adapters/http/client.js';
import { ProviderError } from '../../adapters/providers/errors.js';
import type { ModelEntry } from '../../adapters/providers/model-entry.js';
import { createModelRouter, type RouterRequest } from '../../adapters/providers/router.js';
import type { EventDraft } from '../../bus/index.js';
import { startLoopbackProxy, type LoopbackProxy } from '../support/loopback-proxy.js';
import { completion } from '../support/vendor-chat-completions.js';
import { startVendorServer, type VendorServer } from '../support/vendor-server.js';
import { eventually } from '../support/eventually.js';

const test = suite('outbound client');
let model: VendorServer;
let proxy: LoopbackProxy;
let other: LoopbackProxy;
const PROXY_VARIABLES = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'no_proxy', 'NO_PROXY'];

test.before(async () => {
  model = await startVendorServer();
  proxy = await startLoopbackProxy();
  other = await startLoopbackProxy();
});
test.after(async () => {
  await model.close();
  await proxy.close();
  await other.close();
});
test.before.each(() => {
  model.reset();
  proxy.seen.length = 0;
  other.seen.length = 0;
});
test.after.each(() => {
  for (const name of PROXY_VARIABLES) delete process.env[name];
});

const hello: RouterRequest = { messages: [{ role: 'user', content: 'hi' }], tools: [] };
const entry = (extra: Partial<ModelEntry> = {}): ModelEntry => ({
  model_name: 'm',
  provider: 'vllm',
  model: 'x',
  api_base: `${model.url}/v1`,
  ...extra,
});

function router(entries: ModelEntry[], budgetMs?: number, maxAttempts?: number, baseDelayMs?: number) {
  const events: EventDraft[] = [];
  const chat = createModelRouter(entries, {
    report: (draft) => events.push(draft),
    ...(budgetMs !== undefined ? { budgetMs } : {}),
    ...(maxAttempts !== undefined ? { maxAttempts } : {}),
    ...(baseDelayMs !== undefined ? { baseDelayMs } : {}),
  });
  return { chat: chat.chat, events };
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ProviderError)) throw new Error(`expected a ProviderError, got ${String(error)}`);
  return error;
}

const path = () => `${model.url}/v1/chat/completions`;

test('HTTP_PROXY sends a plain-http model call to the proxy in absolute form, and the answer comes back', async () => {
  process.env.HTTP_PROXY = proxy.url;
  model.reply(completion({ content: 'through the proxy' }));
  const { chat } = router([entry()]);
  assert.is((await chat('m', hello)).text, 'through the proxy');
  assert.equal(proxy.seen, [`POST ${path()}`]);
});

test('the lowercase http_proxy wins over HTTP_PROXY', async () => {
  process.env.HTTP_PROXY = other.url;
  process.env.http_proxy = proxy.url;
  model.reply(completion({ content: 'ok' }));
  await router([entry()]).chat('m', hello);
  assert.equal([proxy.seen, other.seen], [[`POST ${path()}`], []]);
});

test('NO_PROXY naming the host (with or without its port) sends the call directly', async () => {
  process.env.HTTP_PROXY = proxy.url;
  for (const noProxy of ['127.0.0.1', `localhost,127.0.0.1:${new URL(model.url).port}`, '*']) {
    process.env.NO_PROXY = noProxy;
    model.reply(completion({ content: 'direct' }));
    assert.is((await router([entry()]).chat('m', hello)).text, 'direct', noProxy);
  }
  assert.equal([proxy.seen, model.requests.length], [[], 3]);
});

test("a model entry's proxy is used instead of the environment's, and NO_PROXY does not apply to it", async () => {
  process.env.HTTP_PROXY = other.url;
  process.env.NO_PROXY = '127.0.0.1';
  model.reply(completion({ content: 'entry proxy' }));
  assert.is((await router([entry({ proxy: proxy.url })]).chat('m', hello)).text, 'entry proxy');
  assert.equal([proxy.seen, other.seen], [[`POST ${path()}`], []]);
});

test('a proxy that wants credentials gets them from the URL; without them the call fails naming the 407', async () => {
  const guarded = await startLoopbackProxy({ user: 'tern', password: 'pa:ss' });
  try {
    model.reply(completion({ content: 'let in' }));
    const withCredentials = guarded.url.replace('tern:pa:ss@', `tern:${encodeURIComponent('pa:ss')}@`);
    assert.is((await router([entry({ proxy: withCredentials })]).chat('m', hello)).text, 'let in');
    const bare = guarded.url.replace('tern:pa:ss@', '');
    // Every attempt meets the same 407: the back-off between them (0.5 s doubling by default) is kept short.
    const { chat, events } = router([entry({ proxy: bare })], undefined, undefined, 10);
    const error = await failure(chat('m', hello));
    assert.equal(
      [error.code, (events[0]!.data as { message?: string }).message],
      ['network', 'model entry "m" (vllm/x) without a key: the proxy asks for credentials (407)'],
    );
    const tunnel = router([entry({ api_base: 'https://127.0.0.1:9/v1', proxy: bare })], undefined, 1);
    const refused = await failure(tunnel.chat('m', hello));
    assert.equal(
      [refused.code, refused.message],
      ['network', 'model entry "m" (vllm/x) without a key: the proxy refused the tunnel (HTTP 407)'],
    );
    assert.equal(guarded.seen.slice(-1), ['CONNECT 127.0.0.1:9']);
  } finally {
    await guarded.close();
  }
});

const MB = 1024 * 1024;

test(
  'a 20 MB answer is refused with a clear error and not asked again, ' + 'whether or not its length is declared',
  async () => {
    const body = `{"choices":[{"message":{"content":"${'x'.repeat(20 * MB)}"}}]}`;
    const declared: Record<string, string> = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    };
    for (const headers of [declared, { 'content-type': 'application/json' }]) {
      model.reply({ status: 200, headers, chunks: [body.slice(0, 8 * MB), body.slice(8 * MB)] });
      const { chat, events } = router([entry()]);
      const error = await failure(chat('m', hello));
      assert.is(error.code, 'too_large');
      assert.is(
        error.message,
        'model entry "m" (vllm/x) without a key: the answer is larger than 16 MB, ' +
          'the most this call accepts (max_response_bytes of the model entry)',
      );
      assert.equal(
        events.map((e) => e.type),
        ['provider.failed'],
      );
    }
  },
);

test('max_response_bytes of an entry sets its cap', async () => {
  model.reply(completion({ content: 'y'.repeat(4096) }));
  const error = await failure(router([entry({ max_response_bytes: 2048 })]).chat('m', hello));
  assert.equal([error.code, /larger than 2048 bytes/.test(error.message)], ['too_large', true]);
});

/**
 * A TCP server that accepts connections and never says anything: a dead model server,
 * or a TLS handshake that never ends.
 */
async function silentServer(): Promise<{
  port: number;
  sockets: Socket[];
  requested: Socket[];
  close(): Promise<void>;
}> {
  const sockets: Socket[] = [];
  const requested: Socket[] = [];
  const server: NetServer = createNetServer((socket) => {
    sockets.push(socket);
    socket.once('data', () => requested.push(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    sockets,
    requested,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

test(
  'connecting has its own time limit: ' +
    'a TLS handshake that never ends fails as connect_timeout, not as a late answer',
  async () => {
    const dead = await silentServer();
    try {
      const started = performance.now();
      const error = await send(
        { connectTimeoutMs: 300 },
        { url: `https://127.0.0.1:${dead.port}/`, firstByteTimeoutMs: 60_000 },
      ).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(error instanceof TransportError);
      assert.equal([error.code, error.message], ['connect_timeout', 'no connection within 0.3 s']);
      assert.ok(performance.now() - started < 5_000);
    } finally {
      await dead.close();
    }
  },
);

test('a model that accepts the request and never answers is a timeout after request_timeout', async () => {
  const dead = await silentServer();
  try {
    const { chat, events } = router(
      [entry({ api_base: `http://127.0.0.1:${dead.port}/v1`, request_timeout: 1 })],
      10_000,
      1,
    );
    const error = await failure(chat('m', hello));
    assert.equal(
      [error.code, (events[0]!.data as { message: string }).message],
      ['timeout', 'model entry "m" (vllm/x) without a key: no answer within 1 s'],
    );
  } finally {
    await dead.close();
  }
});

test(
  'a dead model server is reported within the budget, ' + 'retries included, naming the budget and the last failure',
  async () => {
    const dead = await silentServer();
    try {
      const { chat, events } = router(
        [entry({ api_base: `http://127.0.0.1:${dead.port}/v1`, request_timeout: 1 })],
        3_000,
      );
      const started = performance.now();
      const error = await failure(chat('m', hello));
      const elapsed = performance.now() - started;
      // undici checks its time limits twice a second, so a 1 s limit ends between 1 and 1.5 s.
      assert.ok(elapsed >= 2_400 && elapsed < 3_700, `reported after ${Math.round(elapsed)} ms`);
      assert.is(error.code, 'timeout');
      assert.match(
        error.message,
        new RegExp(
          /^no answer within 3 s \(\d attempts?, agents\.defaults\.model_budget_seconds\); /.source +
            /last: model entry "m" \(vllm\/x\) without a key: no answer within 1 s$/.source,
        ),
      );
      assert.equal(
        [events[0]?.type, events.at(-1)?.type, (events.at(-1)!.data as { message: string }).message],
        ['provider.failed', 'provider.failed', error.message],
      );
    } finally {
      await dead.close();
    }
  },
);

test('an abort (/stop) ends a call that is waiting for the model at once, and its connection is closed', async () => {
  const dead = await silentServer();
  try {
    const { chat, events } = router([entry({ api_base: `http://127.0.0.1:${dead.port}/v1` })]);
    const controller = new AbortController();
    const call = chat('m', hello, { signal: controller.signal }).then(
      () => undefined,
      (e: unknown) => e,
    );
    await eventually(() => dead.requested.length, 1);
    const started = performance.now();
    controller.abort();
    const error = await call;
    assert.ok(performance.now() - started < 2_000);
    assert.not.ok(error instanceof ProviderError);
    await eventually(() => dead.requested.map((socket) => socket.destroyed), [true]);
    assert.equal([events, dead.requested.map((socket) => socket.destroyed)], [[], [true]]);
  } finally {
    await dead.close();
  }
});

test.run();
