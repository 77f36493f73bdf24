// `tern gateway` as a client of a remote Pico server: sessions and what a server marks as reasoning, typing around a
// reply, a reply made while the server is down (it arrives after the reconnect, once) and a server that hangs.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { until } from '../../support/eventually.js';
import { startGatewayModel, type GatewayModel } from '../../support/gateway-model.js';
import { modelEntry, startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.js';
import { quietGateway } from '../../support/quiet.js';
import { freePort } from '../../support/telegram-emulator.js';
import { PicoServerEmulator } from './pico-server-emulator.js';

interface Context {
  model: GatewayModel;
  pico: PicoServerEmulator;
  gateway: GatewayProcess;
}

const SESSION = 'home-session';
const texts = (pico: PicoServerEmulator, session: string) => () =>
  pico.sentIn(session).map((f) => f.payload?.content ?? '');

/** What the gateway logged so far (its log files under the home). */
function logged(gateway: GatewayProcess): string {
  const dir = join(gateway.home.home, 'logs');
  return readdirSync(dir)
    .map((file) => readFileSync(join(dir, file), 'utf8'))
    .join('\n');
}

const pico = suite<Context>('tern gateway as a Pico Protocol client');

pico.before(async (context) => {
  context.model = await startGatewayModel();
  context.pico = await PicoServerEmulator.start();
  context.gateway = await startGatewayProcess(
    {
      gateway: { host: '127.0.0.1', port: await freePort(), log_level: 'debug' },
      agents: { defaults: { model: 'fast' } },
      model_list: [modelEntry(context.model.url)],
      heartbeat: { enabled: false },
      channel_list: {
        pico_client: {
          enabled: true,
          type: 'pico_client',
          allow_from: ['pico-remote'],
          settings: {
            url: context.pico.url,
            token: context.pico.token,
            session_id: SESSION,
            ping_interval: 1,
            read_timeout: 3,
            restart_backoff_ms: 200,
          },
        },
      },
    },
    {},
    undefined,
    60_000,
  );
});

pico.after(async (context) => {
  if (context.gateway?.child.exitCode === null) await context.gateway.stop();
  await context.pico?.close();
  await context.model?.close();
  context.gateway?.home.remove();
});

pico(
  'a frame naming no session is in settings.session_id; a thought is no message; typing brackets the reply',
  async ({ pico, gateway }) => {
    await pico.push({ type: 'message.create', payload: { content: 'pondering the question', kind: 'thought' } });
    await pico.push({ type: 'message.create', payload: { content: 'an old-style thought', thought: true } });
    await pico.push({ type: 'message.create', payload: { message_id: 'm1', content: 'hello without a session' } });
    const replies = texts(pico, SESSION);
    await until('the reply in the configured session', () => (replies().length > 0 ? true : undefined), 60_000);
    assert.equal(await quietGateway(gateway.home.sessions, replies), ['echo: hello without a session']);
    assert.equal(pico.typingIn(SESSION), ['typing.start', 'typing.stop']);
    const [reply] = pico.sentIn(SESSION);
    assert.match(reply!.id ?? '', /^msg_[0-9a-f]{32}$/);
  },
);

pico(
  "a picture as the peer's {data_url} item is saved and named in the turn; an undecodable item is left out",
  async ({ pico, gateway }) => {
    const session = 'with-a-picture';
    const bytes = Buffer.from('\x89PNG pico picture');
    await pico.push({
      type: 'media.create',
      session_id: session,
      payload: {
        content: 'look at this',
        media: [{ data_url: `data:image/png;base64,${bytes.toString('base64')}` }, 'data:text/plain,%E0%A4%A'],
      },
    });
    const replies = texts(pico, session);
    await until('the reply', () => (replies().length > 0 ? true : undefined), 60_000, replies);
    const [reply] = await quietGateway(gateway.home.sessions, replies);
    const saved = /^echo: look at this\n\[image: (media\/inbound\/[^\]]+)\]$/.exec(reply ?? '');
    assert.ok(saved, `the reply names one saved picture: ${JSON.stringify(reply)}`);
    assert.equal(readFileSync(join(gateway.home.workspace, saved![1]!)), bytes);
  },
);

pico('a reply made while the server is down reaches it once the client is back, exactly once', async (context) => {
  const { pico, model, gateway } = context;
  const session = 'across-the-drop';
  await pico.push({ type: 'message.create', session_id: session, payload: { content: 'HOLD across the drop' } });
  await until('the turn at the model', () => (model.asked.includes('HOLD across the drop') ? true : undefined), 60_000);
  pico.down();
  // The client has seen the drop once it knocks again and is turned away; only then is the reply made.
  await until('a refused reconnect', () => (pico.refused() > 0 ? true : undefined), 60_000);
  const connections = pico.connections();
  model.release();
  await until(
    'the reply failing against the closed connection',
    () => (logged(gateway).includes('reply part not taken; trying again') ? true : undefined),
    60_000,
    () => logged(gateway).slice(-2000),
  );
  pico.resume();
  const replies = texts(pico, session);
  await until('the reply after the reconnect', () => (replies().length > 0 ? true : undefined), 60_000, replies);
  assert.equal(await quietGateway(gateway.home.sessions, replies), ['echo: HOLD across the drop']);
  assert.ok(pico.connections() > connections, 'the client connected again');
});

pico('a server that stops answering is left after read_timeout and connected to again', async ({ pico, gateway }) => {
  const before = pico.connections();
  pico.hang();
  await until('a new connection', () => (pico.connections() > before ? true : undefined), 60_000);
  await pico.push({ type: 'message.create', session_id: 'after-hang', payload: { content: 'still there' } });
  const replies = texts(pico, 'after-hang');
  await until('the reply', () => (replies().length > 0 ? true : undefined), 60_000, replies);
  assert.equal(await quietGateway(gateway.home.sessions, replies), ['echo: still there']);
});

pico.run();
