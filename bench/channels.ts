// `tern gateway` with one channel of every kind it speaks, each against its loopback emulator, bundled and started
// as users run it: its RSS after a minute idle once every channel is connected. Each platform's library loads only
// when its channel is configured, so this is the gateway's memory with all of them loaded at once.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ContractEmulator } from '../tests/channels/contract/emulator.js';
import { DingTalkContractEmulator } from '../tests/channels/dingtalk/dingtalk-contract-emulator.js';
import { EmailContractEmulator } from '../tests/channels/email/email-contract-emulator.js';
import { FeishuContractEmulator } from '../tests/channels/feishu/feishu-contract-emulator.js';
import { IrcContractEmulator } from '../tests/channels/irc/irc-contract-emulator.js';
import { MattermostContractEmulator } from '../tests/channels/mattermost/mattermost-contract-emulator.js';
import { OneBotContractEmulator } from '../tests/channels/onebot/onebot-contract-emulator.js';
import { PicoContractEmulator } from '../tests/channels/pico-client/pico-contract-emulator.js';
import { QqContractEmulator } from '../tests/channels/qq/qq-contract-emulator.js';
import { SignalContractEmulator } from '../tests/channels/signal/signal-contract-emulator.js';
import { WeComContractEmulator } from '../tests/channels/wecom/wecom-contract-emulator.js';
import { DiscordApi } from '../tests/support/discord-api.js';
import { startGatewayModel } from '../tests/support/gateway-model.js';
import { modelEntry } from '../tests/support/gateway-process.js';
import { LineApi } from '../tests/support/line-api.js';
import { MatrixHomeserver } from '../tests/support/matrix-homeserver.js';
import { SlackApi } from '../tests/support/slack-api.js';
import { TelegramBotApi } from '../tests/support/telegram-bot-api.js';
import { freePort } from '../tests/support/telegram-emulator.js';
import { tempHome } from '../tests/support/temp-home.js';
import { WhatsAppGraphApi } from '../tests/support/whatsapp-graph-api.js';
import { bundleCli, rssMb } from './gateway-run.js';
import { round, type BenchRow } from './row.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 60_000);

/** One emulator per channel kind of `tern gateway` (WhatsApp through its Cloud API). */
const EMULATORS: Record<string, () => Promise<ContractEmulator>> = {
  telegram: () => TelegramBotApi.start(),
  discord: () => DiscordApi.start(),
  slack: () => SlackApi.start(),
  line: () => LineApi.start(),
  whatsapp: () => WhatsAppGraphApi.start(),
  wecom: () => WeComContractEmulator.start(),
  feishu: () => FeishuContractEmulator.start(),
  dingtalk: () => DingTalkContractEmulator.start(),
  qq: () => QqContractEmulator.start(),
  onebot: () => OneBotContractEmulator.start(),
  matrix: () => MatrixHomeserver.start(),
  irc: () => IrcContractEmulator.start(),
  signal: () => SignalContractEmulator.start(),
  mattermost: () => MattermostContractEmulator.start(),
  email: () => EmailContractEmulator.start(),
  pico_client: () => PicoContractEmulator.start(),
};

/** Polls `/ready` until every channel is connected. */
async function allConnected(port: number, kinds: number): Promise<void> {
  const deadline = performance.now() + 120_000;
  for (;;) {
    const body = (await fetch(`http://127.0.0.1:${port}/ready`).then(
      (r) => r.json(),
      () => undefined,
    )) as { channels?: Array<{ name: string; state: string }> } | undefined;
    const connected = body?.channels?.filter((c) => c.state === 'connected').length ?? 0;
    if (connected === kinds) return;
    if (performance.now() > deadline) throw new Error(`channels not all connected: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * `BENCH_CHANNELS=feishu,discord` starts only those kinds (an empty value: none, the plain gateway), to find what
 * one kind adds; the row is then named for them.
 */
function chosenKinds(): string[] {
  const chosen = process.env.BENCH_CHANNELS;
  if (chosen === undefined) return Object.keys(EMULATORS);
  return chosen.split(',').filter((kind) => {
    if (kind === '') return false;
    if (!(kind in EMULATORS)) throw new Error(`BENCH_CHANNELS: no channel kind ${kind}`);
    return true;
  });
}

export async function bench(): Promise<BenchRow[]> {
  const kinds = chosenKinds();
  const name =
    process.env.BENCH_CHANNELS === undefined
      ? 'gateway.idle_rss_mb_all_channels'
      : `gateway.idle_rss_mb_channels[${kinds.join(',')}]`;
  const bundle = bundleCli(join(root, '.tern-bench', 'channels'));
  const model = await startGatewayModel();
  const port = await freePort();
  const emulators = new Map<string, ContractEmulator>();
  const home = tempHome();
  try {
    for (const kind of kinds) emulators.set(kind, await (EMULATORS[kind] as () => Promise<ContractEmulator>)());
    const channels = Object.fromEntries(
      [...emulators].map(([kind, emulator]) => {
        emulator.attach?.(`http://127.0.0.1:${port}/webhooks/${kind}/${kind}`);
        return [kind, { enabled: true, type: kind, settings: { ...emulator.settings(), allow_from: ['*'] } }];
      }),
    );
    mkdirSync(home.home, { recursive: true });
    const config = {
      version: 2,
      gateway: { host: '127.0.0.1', port },
      agents: { defaults: { model: 'fast' } },
      model_list: [modelEntry(model.url)],
      heartbeat: { enabled: false },
      channel_list: channels,
    };
    writeFileSync(join(home.home, 'config.json'), JSON.stringify(config));
    const child = spawn(bundle, ['gateway'], { env: home.env, stdio: 'ignore' });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await allConnected(port, emulators.size);
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      return [{ name, value: round(rssMb(child.pid!), 1), unit: 'MB' }];
    } finally {
      child.kill('SIGINT');
      await exited;
    }
  } finally {
    await Promise.all([...emulators.values()].map((e) => e.close()));
    await model.close();
    home.remove();
  }
}
