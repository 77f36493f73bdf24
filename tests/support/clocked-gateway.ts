// An in-process gateway on a hand-moved clock, with one channel of its own that connects at once, records what is
// sent to it and lets the test say things in a direct chat; the model answers like `startGatewayModel` does.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Channel, ChannelHooks } from '../../adapters/channels/channel.js';
import { Gateway } from '../../actors/gateway/gateway.js';
import type { Envelope } from '../../bus/index.js';
import { loadConfig } from '../../store/config/index.js';
import { openGatewayLogs, type GatewayLogs } from '../../store/logs/logger.js';
import { eventually } from './eventually.js';
import { ManualClock } from './gateway-clock.js';
import { startGatewayModel, type GatewayModel } from './gateway-model.js';
import { modelEntry } from './gateway-process.js';
import { freePort } from './telegram-emulator.js';
import { tempHome, type TempHome } from './temp-home.js';

export interface ClockedGateway {
  home: TempHome;
  model: GatewayModel;
  logs: GatewayLogs;
  gateway: Gateway;
  clock: ManualClock;
  events: Envelope[];
  /** Texts the channel was asked to send, in order. */
  sent: string[];
  /** The config as written; `rewrite` writes it again after a change. */
  config: Record<string, unknown>;
  rewrite(): void;
  /** A message from user 42 in its direct chat. */
  say(text: string): void;
  close(): Promise<void>;
}

export async function startClockedGateway(
  blocks: Record<string, unknown> = {},
  env: NodeJS.ProcessEnv = {},
  /** Writes what the home holds before the gateway starts (a log written earlier). */
  seed?: (home: TempHome) => Promise<void>,
): Promise<ClockedGateway> {
  const home = tempHome();
  Object.assign(home.env, env);
  await seed?.(home);
  const model = await startGatewayModel();
  const config: Record<string, unknown> = {
    version: 2,
    gateway: { port: await freePort(), log_level: 'info' },
    agents: { defaults: { model: 'fast' } },
    model_list: [modelEntry(model.url)],
    channel_list: { desk: { enabled: true, type: 'desk', settings: { typing: false, allow_from: ['*'] } } },
    ...blocks,
  };
  const rewrite = (): void => writeFileSync(join(home.home, 'config.json'), JSON.stringify(config));
  rewrite();
  mkdirSync(home.workspace, { recursive: true });
  const loaded = loadConfig({ env: home.env });
  const logs = openGatewayLogs(loaded);
  const clock = new ManualClock(Date.now());
  const sent: string[] = [];
  let hooks: ChannelHooks | undefined;
  let said = 0;
  const channel = async (): Promise<Channel> => ({
    kind: 'desk',
    capabilities: { commands: [], streaming: false, maxMessageLength: 4000 },
    start: async (given) => {
      hooks = given;
      given.onConnected();
    },
    stop: async () => undefined,
    send: async (_replyTo, text) => {
      sent.push(text);
      return `s${sent.length}`;
    },
    edit: async () => undefined,
    typing: async () => undefined,
  });
  const gateway = await Gateway.start({ loaded, env: home.env, logs, scheduler: clock, createChannel: channel });
  const events: Envelope[] = [];
  gateway.core.bus.events$.subscribe((e) => events.push(e));
  if (!(await eventually(() => gateway.readiness().ready, true))) throw new Error('the gateway did not become ready');
  return {
    home,
    model,
    logs,
    gateway,
    clock,
    events,
    sent,
    config,
    rewrite,
    say: (text) =>
      hooks?.onMessage({
        messageId: `m${++said}`,
        chat: 'direct:42',
        replyTo: '42',
        sender: '42',
        senderAliases: ['42'],
        text,
        mentioned: false,
      }),
    close: async () => {
      await gateway.stop();
      logs.close();
      await model.close();
      home.remove();
    },
  };
}

export const readText = (path: string): string => readFileSync(path, 'utf8');

/** A log's lines without their time stamps. */
export const logLines = (path: string): string[] =>
  readText(path)
    .trimEnd()
    .split('\n')
    .filter(Boolean)
    .map((line) => line.replace(/^\S+ /, ''));
