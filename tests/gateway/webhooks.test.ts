import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCliAsync } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { modelEntry, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { LineApi } from '../support/line-api.js';
import { quietGateway } from '../support/quiet.js';
import { freePort } from '../support/telegram-emulator.js';

interface Context {
  model: GatewayModel;
  line: LineApi;
  peer: LineApi;
  gateway: GatewayProcess;
  port: number;
}

const hooks = suite<Context>('webhooks on the gateway HTTP server');

hooks.before(async (context) => {
  context.model = await startGatewayModel();
  context.line = await LineApi.start();
  context.peer = await LineApi.start();
  context.port = await freePort();
  context.line.attach(`http://127.0.0.1:${context.port}/webhooks/line/line`);
  // The peer runtime's field: LINE posts to the path the user chose.
  context.peer.attach(`http://127.0.0.1:${context.port}/webhook/line`);
  context.gateway = await startGatewayProcess(
    {
      gateway: { host: '127.0.0.1', port: context.port },
      agents: { defaults: { model: 'fast' } },
      model_list: [modelEntry(context.model.url)],
      heartbeat: { enabled: false },
      channel_list: {
        line: { enabled: true, type: 'line', settings: { ...context.line.settings(), allow_from: ['*'] } },
        line_peer: {
          enabled: true,
          type: 'line',
          settings: { ...context.peer.settings(), webhook_path: '/webhook/line', allow_from: ['*'] },
        },
      },
    },
    {},
    undefined,
    60_000,
  );
});

hooks.after(async (context) => {
  await context.gateway.stop();
  await context.line.close();
  await context.peer.close();
  await context.model.close();
  context.gateway.home.remove();
});

hooks('a body signed with the wrong secret gets 401 and no turn', async ({ line, model, gateway }) => {
  const chat = line.direct('alice');
  const body = line.eventBody(chat.sender, { id: '900001', type: 'text', text: 'forged hello' });
  const answer = await line.post(body, line.sign(body, 'not-the-channel-secret'));
  assert.is(answer.status, 401);
  assert.equal(JSON.parse(answer.body), { error: 'bad signature' });
  const missing = await line.post(body, '');
  assert.is(missing.status, 401);
  await quietGateway(gateway.home.sessions, () => model.asked.length);
  assert.not.ok(
    model.asked.some((text) => text.includes('forged hello')),
    'the model never saw it',
  );
  assert.equal(chat.sent(), []);
});

hooks(
  'a correctly signed delivery from ten minutes ago (a replay) gets 401 and no turn',
  async ({ line, model, gateway }) => {
    const chat = line.direct('bob');
    const body = line.eventBody(
      chat.sender,
      { id: '900002', type: 'text', text: 'replayed hello' },
      Date.now() - 10 * 60_000,
    );
    const answer = await line.post(body);
    assert.is(answer.status, 401);
    assert.equal(JSON.parse(answer.body), { error: 'every event is older than 300 s (a replay)' });
    await quietGateway(gateway.home.sessions, () => model.asked.length);
    assert.not.ok(model.asked.some((text) => text.includes('replayed hello')));
  },
);

hooks('a body over 1 MB gets 413 and no turn', async ({ line, model, gateway }) => {
  const chat = line.direct('carol');
  const body = line.eventBody(chat.sender, { id: '900003', type: 'text', text: `huge ${'x'.repeat(1024 * 1024)}` });
  const answer = await line.post(body);
  assert.is(answer.status, 413);
  await quietGateway(gateway.home.sessions, () => model.asked.length);
  assert.not.ok(model.asked.some((text) => text.startsWith('huge')));
});

hooks('a signed delivery is answered 200 once it is kept, and the user gets the reply', async ({ line }) => {
  const chat = line.direct('dave');
  await chat.say('real hello');
  assert.is(line.deliveries.at(-1)!.status, 200);
  const sent = await eventually(() => chat.sent().map((m) => m.text), ['echo: real hello'], 30_000);
  assert.equal(sent, ['echo: real hello']);
});

hooks('an entry with webhook_path takes its webhooks there', async ({ peer }) => {
  const chat = peer.direct('erin');
  await chat.say('hello on the peer path');
  assert.is(peer.deliveries.at(-1)!.status, 200);
  const sent = await eventually(() => chat.sent().map((m) => m.text), ['echo: hello on the peer path'], 30_000);
  assert.equal(sent, ['echo: hello on the peer path']);
});

hooks('a path no channel serves is refused like any other non-GET request (405)', async ({ gateway }) => {
  const unknown = await fetch(`${gateway.url}/webhooks/line/nobody`, { method: 'POST', body: '{}' });
  assert.is(unknown.status, 405);
  const health = await fetch(`${gateway.url}/health`);
  assert.is(health.status, 200);
});

hooks('tern status prints each webhook URL', async ({ gateway, port }) => {
  const status = await runCliAsync(['status', '--json'], gateway.home.env);
  const channels = (JSON.parse(status.stdout) as { channels: Array<{ name: string; webhook_url?: string }> }).channels;
  assert.equal(
    channels.map((c) => [c.name, c.webhook_url]),
    [
      ['line', `http://127.0.0.1:${port}/webhooks/line/line`],
      ['line_peer', `http://127.0.0.1:${port}/webhook/line`],
    ],
  );
  const text = await runCliAsync(['status'], gateway.home.env);
  assert.match(text.stdout, `webhook http://127.0.0.1:${port}/webhooks/line/line`);
});

hooks.run();
