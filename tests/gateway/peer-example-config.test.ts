// The peer runtime's example config (its channel entries and fields, as in tests/fixtures/peer/channels-example.json),
// its secrets and addresses replaced by loopback emulators', starts a gateway that answers on every channel kind it
// lists except `maixcam` (a hardware device), `pico` included: `tern gateway` serves it on its own port.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ContractEmulator } from '../channels/contract/emulator.js';
import { DingTalkEmulator } from '../channels/dingtalk/dingtalk-emulator.js';
import { FeishuEmulator } from '../channels/feishu/feishu-emulator.js';
import { OneBotEmulator } from '../channels/onebot/onebot-emulator.js';
import { PicoServerEmulator } from '../channels/pico-client/pico-server-emulator.js';
import { PicoTestClient } from '../channels/pico/pico-test-client.js';
import { QqEmulator } from '../channels/qq/qq-emulator.js';
import { WeComEmulator } from '../channels/wecom/wecom-emulator.js';
import { IrcContractEmulator } from '../channels/irc/irc-contract-emulator.js';
import { DiscordApi } from '../support/discord-api.js';
import { until } from '../support/eventually.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { modelEntry, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { LineApi } from '../support/line-api.js';
import { MatrixHomeserver } from '../support/matrix-homeserver.js';
import { quietGateway } from '../support/quiet.js';
import { SlackApi } from '../support/slack-api.js';
import { TelegramBotApi } from '../support/telegram-bot-api.js';
import { freePort } from '../support/telegram-emulator.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'peer', 'channels-example.json');
/** Kinds the example lists that no gateway can answer on: a camera board. */
const HARDWARE = new Set(['maixcam']);

interface Entry {
  type: string;
  enabled: boolean;
  allow_from?: string[];
  settings: Record<string, unknown>;
}

/** One emulated platform, seen from the one user the test speaks as. */
interface Reach {
  /** Fields that point the entry at the emulator: its secrets and addresses replace the example's. */
  settings: Record<string, unknown>;
  /** The user, as `allow_from` names them. */
  sender: string;
  say(text: string): unknown;
  /** What the bot sent the user, each message as it reads now (after edits). */
  replies(): string[];
  close(): Promise<void>;
}

/** A platform whose emulator speaks the contract kit's interface. */
async function contractReach(emulator: ContractEmulator): Promise<Reach> {
  const chat = emulator.direct('peer');
  return {
    settings: emulator.settings(),
    sender: chat.sender,
    say: (text) => chat.say(text),
    replies: () => chat.sent().map((m) => m.text),
    close: () => emulator.close(),
  };
}

/** A loopback of the peer's WhatsApp bridge: it says what users say and records what the bot sends. */
async function bridgeReach(): Promise<Reach> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const sockets = new Set<WebSocket>();
  const sent: Array<{ to?: string; content?: string }> = [];
  wss.on('connection', (ws) => {
    sockets.add(ws);
    ws.on('message', (raw) => sent.push(JSON.parse(raw.toString()) as { to?: string; content?: string }));
  });
  const from = '15550100';
  return {
    settings: { bridge_url: `ws://127.0.0.1:${(wss.address() as { port: number }).port}` },
    sender: from,
    say: (content: string) => {
      const frame = JSON.stringify({ type: 'message', id: `B${Date.now()}`, from, chat: from, content });
      sockets.forEach((ws) => ws.send(frame));
    },
    replies: () => sent.filter((m) => m.to === from).map((m) => m.content ?? ''),
    close: async () => {
      sockets.forEach((ws) => ws.terminate());
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/** How each kind the example lists is emulated; `webhook` is where the gateway takes that entry's webhooks. */
const REACH: Record<string, (webhook: string) => Promise<Reach>> = {
  telegram: async () => contractReach(await TelegramBotApi.start()),
  discord: async () => contractReach(await DiscordApi.start()),
  slack: async () => contractReach(await SlackApi.start()),
  matrix: async () => contractReach(await MatrixHomeserver.start()),
  irc: async () => contractReach(await IrcContractEmulator.start()),
  line: async (webhook) => {
    const line = await LineApi.start();
    line.attach(webhook);
    return contractReach(line);
  },
  whatsapp: () => bridgeReach(),
  qq: async () => {
    const qq = await QqEmulator.start();
    const user = qq.user();
    return {
      settings: { app_id: qq.appId, app_secret: qq.appSecret, base_url: qq.url },
      sender: user.openid,
      say: (text) => user.say(text),
      replies: () => user.sent().map((m) => String(m.body.content)),
      close: () => qq.close(),
    };
  },
  onebot: async () => {
    const onebot = await OneBotEmulator.start();
    const user = onebot.user('peer');
    return {
      settings: { ws_url: onebot.url, access_token: onebot.accessToken },
      sender: String(user.id),
      say: (text) => user.say(text),
      replies: () => user.sent().map((m) => m.text),
      close: () => onebot.close(),
    };
  },
  // The gateway is the Pico server: the user is a client of its `/pico/ws` holding the entry's token.
  pico: async (webhook) => {
    const token = 'peer-pico-token';
    const client = new PicoTestClient(`ws://${new URL(webhook).host}/pico/ws`, 'peer-pico-session', token);
    return {
      settings: { token },
      sender: client.session,
      say: (text) => client.say(text),
      replies: () => client.messages.map((m) => m.text),
      close: async () => client.close(),
    };
  },
  pico_client: async () => {
    const pico = await PicoServerEmulator.start();
    const session = 'peer-session';
    return {
      settings: { url: pico.url, token: pico.token },
      sender: session,
      say: (text) => pico.push({ type: 'message.create', session_id: session, payload: { content: text } }),
      replies: () => pico.sentIn(session).map((f) => f.payload?.content ?? ''),
      close: () => pico.close(),
    };
  },
  wecom: async () => {
    const wecom = await WeComEmulator.start();
    const user = wecom.user();
    return {
      settings: { bot_id: wecom.botId, secret: wecom.secret, websocket_url: wecom.url },
      sender: user.userId,
      say: (text) => user.say(text),
      // A reply streams into one message; the example turns on the thinking message that the stream replaces.
      replies: () => [
        ...user
          .streams()
          .filter((s) => s.finished)
          .map((s) => s.contents.at(-1) ?? ''),
        ...user.pushes().map((p) => p.content),
      ],
      close: () => wecom.close(),
    };
  },
  dingtalk: async () => {
    const dingtalk = await DingTalkEmulator.start();
    const user = dingtalk.user('peer');
    return {
      settings: { client_id: dingtalk.clientId, client_secret: dingtalk.clientSecret, base_url: dingtalk.url },
      sender: user.staffId,
      say: (text) => user.say(text),
      replies: () => user.sent().map((m) => m.text),
      close: () => dingtalk.close(),
    };
  },
  feishu: async () => {
    const feishu = await FeishuEmulator.start();
    const user = feishu.user();
    return {
      settings: { app_id: feishu.appId, app_secret: feishu.appSecret, base_url: feishu.url },
      sender: user.openId,
      say: (text) => user.say(text),
      replies: () => user.sent().map((m) => m.text),
      close: () => feishu.close(),
    };
  },
};

interface Context {
  model: GatewayModel;
  reach: Map<string, Reach>;
  gateway: GatewayProcess;
}

const raw = readFileSync(FIXTURE, 'utf8');
const example = JSON.parse(raw) as { channel_list: Record<string, Entry> };
const listed = Object.values(example.channel_list).map((e) => e.type);

const peer = suite<Context>("the peer runtime's example config");

peer.before(async (context) => {
  context.model = await startGatewayModel();
  const port = await freePort();
  const config = JSON.parse(raw) as Record<string, unknown> & { channel_list: Record<string, Entry> };
  context.reach = new Map();
  for (const [name, entry] of Object.entries(config.channel_list)) {
    entry.enabled = !HARDWARE.has(entry.type);
    if (!entry.enabled) continue;
    const path = typeof entry.settings.webhook_path === 'string' ? entry.settings.webhook_path : undefined;
    const reachOf = REACH[entry.type];
    if (!reachOf) throw new Error(`no emulator for the example's ${entry.type} entry`);
    const reach = await reachOf(`http://127.0.0.1:${port}${path ?? `/webhooks/${entry.type}/${name}`}`);
    context.reach.set(entry.type, reach);
    Object.assign(entry.settings, reach.settings);
    entry.allow_from = [reach.sender];
  }
  // The example's own secrets are placeholders the peer fills from its environment; those no emulator sets stay empty.
  const filled = JSON.parse(JSON.stringify(config).replace(/\$\{\w+\}/g, '')) as typeof config;
  filled.gateway = { host: '127.0.0.1', port, log_level: 'debug' };
  filled.agents = { defaults: { model: 'fast' } };
  filled.model_list = [modelEntry(context.model.url)];
  context.gateway = await startGatewayProcess(filled, {}, undefined, 60_000);
});

peer.after(async (context) => {
  if (context.gateway?.child.exitCode === null) await context.gateway.stop();
  await Promise.all([...(context.reach?.values() ?? [])].map((r) => r.close()));
  await context.model?.close();
  context.gateway?.home.remove();
});

for (const kind of listed) {
  if (HARDWARE.has(kind)) continue;
  peer(`${kind} answers`, async ({ reach, gateway }) => {
    const user = reach.get(kind)!;
    await user.say(`hello ${kind}`);
    const expected = `echo: hello ${kind}`;
    const replied = (): true | undefined => (user.replies().includes(expected) ? true : undefined);
    await until(`a reply on ${kind}`, replied, 60_000, user.replies);
    assert.equal(await quietGateway(gateway.home.sessions, user.replies), [expected]);
  });
}

peer.run();
