// A `pico` entry of a running `tern gateway` as its owner meets it outside the chat: the start's line about who may
// talk to it, its address in `tern status`, and `tern doctor`'s upgrade at `/pico/ws` with and without the token.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCliAsync } from '../../support/cli.js';
import { until } from '../../support/eventually.js';
import { tempHome } from '../../support/temp-home.js';
import { startChannelsGateway, stopChannelsGateway, type ChannelsGateway } from '../channels-gateway.js';
import { channelDoctor } from '../doctor-checks.js';

const TOKEN = 'pico-reach-token-0123456789abcdef';

type Context = Partial<ChannelsGateway> & { port: number; url: string };

const reach = suite<Context>('a running pico entry in the log, tern status and tern doctor');

reach.before(async (context) => {
  Object.assign(
    context,
    await startChannelsGateway({
      // The peer runtime's example leaves allow_from empty: only sessions approved by pairing are answered.
      chat: { enabled: true, type: 'pico', settings: { token: TOKEN } },
      spare: { enabled: false, type: 'pico', settings: { token: TOKEN } },
    }),
  );
  context.port = Number(new URL(context.gateway!.url).port);
  context.url = `ws://127.0.0.1:${context.port}/pico/ws`;
});

reach.after(async (context) => {
  await stopChannelsGateway(context);
});

reach('the start logs that an empty allow_from lets only approved sessions in', async ({ gateway }) => {
  const file = join(gateway!.home.home, 'logs', 'gateway.log');
  const notice =
    'WARN channel chat has an empty allow_from, so only senders you approve may talk to it: ' +
    'a stranger gets a pairing code and no answer';
  await until(
    'the notice',
    () => (readFileSync(file, 'utf8').includes(notice) ? true : undefined),
    30_000,
    () => readFileSync(file, 'utf8'),
  );
});

reach('tern status prints the WebSocket address of the enabled entry', async ({ gateway, url }) => {
  const status = await runCliAsync(['status', '--json'], gateway!.home.env);
  const channels = (JSON.parse(status.stdout) as { channels: Array<{ name: string; websocket_url?: string }> })
    .channels;
  assert.equal(
    channels.map((c) => [c.name, c.websocket_url]),
    [
      ['chat', url],
      ['spare', undefined],
    ],
  );
  const text = await runCliAsync(['status'], gateway!.home.env);
  assert.match(
    text.stdout,
    `  chat  pico  proxy: its library connects by itself  enabled  websocket ${url}  connected\n`,
  );
});

reach('doctor: the token is taken and a client without it gets 401; another token is an error', async (context) => {
  const { gateway, port, url } = context;
  const ran = await runCliAsync(['doctor', '--json'], gateway!.home.env);
  const checks = (JSON.parse(ran.stdout) as { checks: Array<{ name: string; status: string; message: string }> })
    .checks;
  const chat = checks.find((c) => c.name === 'channel chat');
  assert.equal(
    [chat?.status, chat?.message],
    ['ok', `the running gateway takes the token at ${url} (without it: 401)`],
  );
  assert.not.ok(ran.stdout.includes(TOKEN), 'the token is not shown');
  // Another home whose config names the same port but another token: the gateway there is not the one it configures.
  const other = tempHome();
  try {
    mkdirSync(other.home, { recursive: true });
    const doctor = await channelDoctor(
      other,
      { chat: { enabled: true, type: 'pico', settings: { token: 'another-token-0123456789abcdef' } } },
      { host: '127.0.0.1', port },
    );
    assert.equal(doctor.check('chat'), [
      'error',
      `the running gateway at ${url} refused the token (HTTP 401 unauthorized)`,
    ]);
  } finally {
    other.remove();
  }
});

reach.run();
