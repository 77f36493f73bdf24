import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { firstValueFrom } from 'rxjs';
import { sessionKeyOf } from '../../actors/agent.js';
import { Runtime, type AgentOptions } from '../../actors/runtime.js';
import type { SessionReply, SessionRequest } from '../../actors/routing.js';
import type { Envelope, EventType } from '../../bus/index.js';
import { loadConfig } from '../../store/config/index.js';
import { tempHome, type TempHome } from './temp-home.js';
import { startVendorServer, type VendorServer } from './vendor-server.js';

export interface TurnFixture {
  home: TempHome;
  vendor: VendorServer;
  runtime: Runtime;
  events: Envelope[];
  send(text: string, session?: string): Promise<SessionReply>;
  /** Resolves with the next event of this type published on the bus. */
  next<T extends EventType>(type: T): Promise<Envelope<T>>;
  close(): Promise<void>;
}

/** A config whose one model, `fast`, is the loopback vendor server speaking chat-completions. */
export function writeConfig(
  home: string,
  vendorUrl: string,
  overrides: {
    defaults?: Record<string, unknown>;
    streaming?: boolean;
    models?: Array<Record<string, unknown>>;
    tools?: Record<string, unknown>;
    blocks?: Record<string, unknown>;
  } = {},
): void {
  mkdirSync(home, { recursive: true });
  const config = {
    version: 2,
    agents: { defaults: { model: 'fast', ...overrides.defaults } },
    ...(overrides.tools ? { tools: overrides.tools } : {}),
    ...overrides.blocks,
    model_list: [
      {
        model_name: 'fast',
        provider: 'openai',
        model: 'gpt-test',
        api_base: `${vendorUrl}/v1`,
        api_keys: ['sk-test-key-0001'],
        streaming: { enabled: overrides.streaming ?? false },
      },
      // An entry's own `api_base` may name the vendor server as `{vendor}` (a family with another path).
      ...(overrides.models ?? []).map((m) => ({
        provider: 'openai',
        api_keys: ['sk-test-key-0002'],
        ...m,
        api_base: typeof m.api_base === 'string' ? m.api_base.replace('{vendor}', vendorUrl) : `${vendorUrl}/v1`,
      })),
    ],
  };
  writeFileSync(join(home, 'config.json'), JSON.stringify(config, null, 2), { mode: 0o600 });
}

/** A message from the terminal channel for the default agent's session `session`. */
export function message(text: string, session: string): SessionRequest {
  return {
    agent: 'main',
    session_key: keyOf(session),
    channel: 'cli',
    chat: `direct:${session}`,
    sender: 'tester',
    message_id: `m_${Math.random().toString(36).slice(2)}`,
    text,
    remote: false,
  };
}

export const keyOf = (session: string) =>
  sessionKeyOf({ agent: 'main', channel: 'cli', dimensions: [['chat', `direct:${session}`]] });

/**
 * `now` fixes the clock the prompt's time is read from; `evolutionClock` drives evolution's cold path; `send` gives the
 * turns a chat to send to.
 */
export async function startTurnFixture(
  overrides: Parameters<typeof writeConfig>[2] = {},
  runtimeOptions: Pick<AgentOptions, 'evolutionClock' | 'now' | 'sessionLimit' | 'send'> = {},
): Promise<TurnFixture> {
  const home = tempHome();
  const vendor = await startVendorServer();
  writeConfig(home.home, vendor.url, overrides);
  const runtime = Runtime.start({
    loaded: loadConfig({ env: home.env }),
    env: home.env,
    command: 'test',
    logError: () => {},
    ...runtimeOptions,
  });
  const events: Envelope[] = [];
  runtime.bus.events$.subscribe((e) => events.push(e));
  return {
    home,
    vendor,
    runtime,
    events,
    send: (text, session = 's1') => runtime.ask(message(text, session)),
    next: <T extends EventType>(type: T) => firstValueFrom(runtime.bus.on(type)),
    close: async () => {
      await runtime.close();
      await vendor.close();
      home.remove();
    },
  };
}
