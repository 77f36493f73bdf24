// The outbound client tells whoever asked (`whenWritten`) the moment a request is written to a connection: the
// outbox's send journal uses it to know which reply parts may have reached their chat before a crash.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fetchOn, sendForText, TransportError } from '../../adapters/http/client.js';
import { whenWritten } from '../../adapters/http/when-written.js';
import { startLoopbackProxy, type LoopbackProxy } from '../support/loopback-proxy.js';
import { freePort } from '../support/telegram-emulator.js';

interface Context {
  server: Server;
  url: string;
  /** What the listener had been told when the server saw each request. */
  toldAtArrival: number[];
  told: number;
  proxy?: LoopbackProxy;
}

const test = suite<Context>('told when a request is written');

test.before.each(async (context) => {
  context.told = 0;
  context.toldAtArrival = [];
  context.server = createServer((req, res) => {
    context.toldAtArrival.push(context.told);
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((resolve) => context.server.listen(0, '127.0.0.1', resolve));
  context.url = `http://127.0.0.1:${(context.server.address() as AddressInfo).port}/botTOKEN/sendMessage`;
});

test.after.each(async (context) => {
  await context.proxy?.close();
  context.proxy = undefined;
  context.server.closeAllConnections();
  await new Promise<void>((resolve) => context.server.close(() => resolve()));
});

const tell = (context: Context) => () => void context.told++;

test('a request is told of once, before the server has it', async (context) => {
  const answer = await whenWritten(tell(context), () => sendForText({}, { url: context.url, body: '{"text":"hi"}' }));
  assert.equal([answer.status, answer.text, context.told, context.toldAtArrival], [200, 'ok', 1, [1]]);
});

test('a request through a proxy is told of once, before the server has it', async (context) => {
  context.proxy = await startLoopbackProxy();
  const answer = await whenWritten(tell(context), () =>
    sendForText({ proxy: context.proxy!.url }, { url: context.url, body: '{"text":"hi"}' }),
  );
  assert.equal(
    [answer.status, context.told, context.toldAtArrival, context.proxy.seen],
    [200, 1, [1], [`POST ${context.url}`]],
  );
});

test('a request that never got a connection (refused) is not told of', async (context) => {
  const refused = `http://127.0.0.1:${await freePort()}/botTOKEN/sendMessage`;
  const failure = await whenWritten(tell(context), () => sendForText({}, { url: refused, body: '{}' })).catch(
    (error: unknown) => error,
  );
  assert.instance(failure, TransportError);
  assert.equal([(failure as TransportError).systemCode, context.told], ['ECONNREFUSED', 0]);
});

test(
  'only the requests made inside whenWritten are told of, ' + 'also when others run at the same time',
  async (context) => {
    await Promise.all([
      whenWritten(tell(context), () => sendForText({}, { url: context.url, body: '1' })),
      sendForText({}, { url: context.url, body: '2' }),
      sendForText({}, { url: context.url, body: '3' }),
    ]);
    assert.equal([context.told, context.toldAtArrival.length], [1, 3]);
  },
);

test("an upload through fetchOn (the Bot API client's fetch) is told of too", async (context) => {
  const fetch = fetchOn({});
  const answer = await whenWritten(tell(context), () =>
    fetch(context.url, { method: 'POST', body: new Blob(['file bytes']) }),
  );
  assert.equal([answer.status, await answer.text(), context.told, context.toldAtArrival], [200, 'ok', 1, [1]]);
});

test(
  'a request whose listener throws as it is written is not written: ' + 'the call fails, the server gets nothing',
  async (context) => {
    class Refused extends Error {
      readonly code = 'refused';
    }
    const refuse = (): void => {
      context.told++;
      throw new Refused('the part may not leave now');
    };
    const failure = await whenWritten(refuse, () => sendForText({}, { url: context.url, body: '{"text":"hi"}' })).catch(
      (error: unknown) => error,
    );
    assert.instance(failure, TransportError);
    assert.instance((failure as TransportError).cause, Refused);
    const fetched = await whenWritten(refuse, () => fetchOn({})(context.url, { method: 'POST', body: '{}' })).catch(
      (error: unknown) => error,
    );
    assert.instance((fetched as Error).cause, Refused);
    // The next request on the route is written as usual.
    const answer = await sendForText({}, { url: context.url, body: '{"text":"hi"}' });
    assert.equal([answer.status, context.told, context.toldAtArrival], [200, 2, [2]]);
  },
);

test.run();
