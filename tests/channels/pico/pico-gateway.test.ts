// `tern gateway` as the Pico Protocol server of a `pico` entry: its clients connect to `/pico/ws` on the gateway's
// own HTTP server and show the entry's token as the peer runtime's clients do; any other token gets 401 and no turn.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { until } from '../../support/eventually.js';
import { quietGateway } from '../../support/quiet.js';
import { startChannelsGateway, stopChannelsGateway, type ChannelsGateway } from '../channels-gateway.js';
import { PicoTestClient, RefusedError, type TokenAs } from './pico-test-client.js';

const TOKEN = 'pico-gateway-token';

type Context = Partial<ChannelsGateway> & { url: string };

const server = suite<Context>('tern gateway as a Pico Protocol server');

server.before(async (context) => {
  Object.assign(
    context,
    await startChannelsGateway({
      // The peer runtime's one sender of every client: listed, every session of a token holder is answered.
      chat: { enabled: true, type: 'pico', allow_from: ['pico-user'], settings: { token: TOKEN } },
    }),
  );
  context.url = `${context.gateway!.url.replace(/^http/, 'ws')}/pico/ws`;
});

server.after(async (context) => {
  await stopChannelsGateway(context);
});

async function refusal(client: PicoTestClient): Promise<number> {
  const error = await client.say('let me in').then(
    () => undefined,
    (e: unknown) => e,
  );
  client.close();
  assert.instance(error, RefusedError);
  return (error as RefusedError).status;
}

/** The client's messages once `count` arrived and the gateway went quiet. */
async function answered(client: PicoTestClient, context: Context, count = 1): Promise<string[]> {
  const texts = () => client.messages.map((m) => m.text);
  await until('a reply', () => (texts().length >= count ? true : undefined), 60_000, texts);
  return quietGateway(context.gateway!.home.sessions, texts);
}

server(
  'a wrong token, or the token in the query where allow_token_query is off, gets 401 and no turn',
  async (context) => {
    const wrong: Array<[TokenAs, string]> = [
      ['bearer', 'not-the-token'],
      ['protocol', 'not-the-token'],
      ['query', TOKEN],
    ];
    for (const [as, token] of wrong)
      assert.is(await refusal(new PicoTestClient(context.url, `s-${as}`, token, as)), 401);
    const holder = new PicoTestClient(context.url, 'holder', TOKEN);
    await holder.say('after the refusals');
    assert.equal(await answered(holder, context), ['echo: after the refusals']);
    assert.equal(context.model!.asked, ['after the refusals']);
    holder.close();
  },
);

server("a browser's token.<value> subprotocol is taken, and echoed as the upgrade's protocol", async (context) => {
  const browser = new PicoTestClient(context.url, 'browser', TOKEN, 'protocol');
  await browser.open();
  assert.is(browser.protocol, `token.${TOKEN}`);
  await browser.say('from a browser');
  assert.equal(await answered(browser, context), ['echo: from a browser']);
  browser.close();
});

server('each session is its own chat: two clients get their own replies only', async (context) => {
  const [a, b] = [new PicoTestClient(context.url, 'first', TOKEN), new PicoTestClient(context.url, 'second', TOKEN)];
  await a.say('one');
  await b.say('two');
  assert.equal(await answered(a, context), ['echo: one']);
  assert.equal(await answered(b, context), ['echo: two']);
  a.close();
  b.close();
});

server('an upgrade to another path gets 404', async (context) => {
  const elsewhere = new PicoTestClient(context.url.replace('/pico/ws', '/pico/other'), 'elsewhere', TOKEN);
  assert.is(await refusal(elsewhere), 404);
});

server.run();
