// A `tern gateway` process with one Telegram account (on the emulator) and one loopback model, on a home whose
// workspace the test may lay out before the start.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGatewayProcess, type GatewayProcess } from './gateway-process.js';
import { freePort } from './telegram-emulator.js';
import type { TempHome } from './temp-home.js';

/** A fresh AGENT_HOME with its default workspace already made (empty). */
export function homeWithWorkspace(): TempHome {
  const home = mkdtempSync(join(tmpdir(), 'tern-'));
  const workspace = join(home, 'workspace');
  mkdirSync(workspace, { recursive: true });
  return {
    home,
    workspace,
    sessions: join(workspace, 'sessions'),
    env: { ...process.env, AGENT_HOME: home, AGENT_CONFIG: '' },
    remove: () => rmSync(home, { recursive: true, force: true }),
  };
}

export interface ChatGatewayOptions {
  home: TempHome;
  modelUrl: string;
  emulatorUrl: string;
  token: string;
  users: number[];
  /** More `gateway` settings (log level, log size). */
  gateway?: Record<string, unknown>;
  /** API keys of the one model entry. */
  keys?: string[];
}

export async function startChatGateway(options: ChatGatewayOptions): Promise<GatewayProcess> {
  const { home, modelUrl, emulatorUrl, token, users } = options;
  const model = { model_name: 'fast', provider: 'openai', model: 'gpt-test', api_base: `${modelUrl}/v1` };
  const settings = { token, base_url: emulatorUrl, allow_from: users.map(String), poll_timeout_seconds: 1 };
  return startGatewayProcess(
    {
      gateway: { host: '127.0.0.1', port: await freePort(), ...options.gateway },
      agents: { defaults: { model: 'fast' } },
      model_list: [{ ...model, api_keys: options.keys ?? ['sk-test-key-0001'] }],
      heartbeat: { enabled: false },
      channel_list: { telegram: { enabled: true, settings } },
    },
    {},
    home,
  );
}
