// `tern pairing` while a gateway runs: the gateway runs the command for the CLI over its control socket, so the
// decision is taken by its pairing desk at once. The gateway here looks at the pairing file only every 200 s (a
// poll multiplier of 100): a decision that waited for that look would not be taken while the test runs.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pairingText } from '../../actors/gateway/inbound.js';
import { APPROVED_NOTICE } from '../../actors/pairing-desk.js';
import { runCliAsync } from '../support/cli.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { modelEntry, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { freePort, TelegramEmulator } from '../support/telegram-emulator.js';

const TOKEN = '830001:pairing-socket-token-AAAA';

interface Context {
  model: GatewayModel;
  emulator: TelegramEmulator;
  gateway: GatewayProcess;
}

const test = suite<Context>('tern pairing through a running gateway');

/** Resolves once the gateway says on stdout that it serves (its control socket is bound before that line). */
function serving(gateway: GatewayProcess): Promise<void> {
  let said = '';
  return new Promise((resolve) => {
    gateway.child.stdout.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes('gateway: serving')) resolve();
    });
  });
}

test.before(async (context) => {
  context.model = await startGatewayModel();
  context.emulator = await TelegramEmulator.start();
  const settings = { token: TOKEN, base_url: context.emulator.url, poll_timeout_seconds: 1, allow_from: [] };
  context.gateway = await startGatewayProcess({
    gateway: { port: await freePort() },
    heartbeat: { enabled: false },
    power: { poll_interval_multiplier: 100 },
    agents: { defaults: { model: 'fast' } },
    model_list: [modelEntry(context.model.url)],
    channel_list: { telegram: { enabled: true, type: 'telegram', settings } },
  });
  await serving(context.gateway);
});

test.after(async (context) => {
  await context.gateway.stop().catch(() => undefined);
  context.gateway.home.remove();
  await context.emulator.stop();
  await context.model.close();
});

const texts = (messages: Array<{ text: string }>): string[] => messages.map((m) => m.text);

test('approve: the gateway lets the stranger in at once and tells them; their next message has a turn', async (ctx) => {
  const { emulator, gateway } = ctx;
  await emulator.say(TOKEN, 'hello?', { userId: 2002, userName: 'bob' });
  const [first] = await emulator.waitForBotMessages(TOKEN, 2002, 1);
  const code = /^Pairing code: ([A-Z2-9]{8})\n/.exec(first?.text ?? '')?.[1] ?? `no code in ${first?.text}`;

  const listed = await runCliAsync(['pairing', 'list', '--json'], gateway.home.env);
  const requests = (JSON.parse(listed.stdout) as { requests: Array<{ code: string }> }).requests;
  assert.equal(
    requests.map((r) => r.code),
    [code],
  );

  const approved = await runCliAsync(['pairing', 'approve', code], gateway.home.env);
  const welcome = `approved ${code}: 2002 (@bob) may talk to the bot on telegram from now on\n`;
  assert.equal([approved.code, approved.stdout, approved.stderr], [0, welcome, '']);
  assert.equal(texts(await emulator.waitForBotMessages(TOKEN, 2002, 2)), [pairingText(code), APPROVED_NOTICE]);

  await emulator.say(TOKEN, 'now?', { userId: 2002, userName: 'bob' });
  assert.equal(texts(await emulator.waitForBotMessages(TOKEN, 2002, 3)).at(-1), 'echo: now?');

  const events = await runCliAsync(['log', '--type', 'pairing.*', '--json'], gateway.home.env);
  type Logged = { type: string; data: Record<string, unknown> };
  const pairing = events.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Logged);
  assert.equal(
    pairing.map((e) => e.type),
    ['pairing.requested', 'pairing.decision.requested', 'pairing.decided'],
  );
  const request = pairing[1]?.data.request;
  const decided = { request, code, channel: 'telegram', sender: '2002', decision: 'approve', by: 'cli' };
  assert.equal(pairing[2]?.data, decided);
});

test('deny and an unknown code are answered by the gateway as the CLI answers them without one', async (ctx) => {
  const { emulator, gateway } = ctx;
  await emulator.say(TOKEN, 'let me in', { userId: 3003, userName: 'eve' });
  const [first] = await emulator.waitForBotMessages(TOKEN, 3003, 1);
  const code = /^Pairing code: ([A-Z2-9]{8})\n/.exec(first?.text ?? '')?.[1] ?? `no code in ${first?.text}`;
  const denied = await runCliAsync(['pairing', 'deny', code], gateway.home.env);
  const turnedAway = `denied ${code}: 3003 (@eve) gets no answer on telegram, and no new code within the hour\n`;
  assert.equal([denied.code, denied.stdout, denied.stderr], [0, turnedAway, '']);
  const again = await runCliAsync(['pairing', 'deny', code, '--json'], gateway.home.env);
  assert.equal(
    [again.code, JSON.parse(again.stdout)],
    [
      1,
      {
        ok: false,
        error: {
          code: 'pairing_unknown',
          message:
            `no pairing request has the code ${code} (it was never issued here, or it was decided already). ` +
            'Run `tern pairing list` to see the codes that wait.',
        },
      },
    ],
  );
});

test.run();
