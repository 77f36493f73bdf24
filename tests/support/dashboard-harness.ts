import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { gatewayHost, type GatewayHost } from '../../adapters/cli/launcher-host/gateway-host.js';
import { mountDashboard } from '../../adapters/cli/launcher-host/mount.js';
import { startLauncher, type RunningLauncher } from '../../adapters/launcher/server.js';
import { setUp } from '../launcher/launcher-harness.js';
import { tempHome, type TempHome } from './temp-home.js';
import { freePort } from './mcp-servers.js';
import { writeConfig } from './turn-fixture.js';
import { completionStreamText, sse } from './vendor-chat-completions.js';
import { splitBytes, startVendorServer, type VendorServer } from './vendor-server.js';

export const API_KEY = 'sk-test-key-0001';

export interface Dashboard {
  home: TempHome;
  vendor: VendorServer;
  launcher: RunningLauncher;
  host: GatewayHost;
  /** The signed-in session cookie. */
  cookie: string;
  close(): Promise<void>;
}

export type DashboardOptions = {
  /** false: no config file at all (first run). */
  configured?: boolean;
  /** `channel_list`; by default an enabled web-UI channel `web` that streams (throttle 0, min growth 1). */
  channels?: Record<string, unknown>;
  /** `gateway.port` (the health server); a free one by default. */
  gatewayPort?: number;
  /** The `tools` block. */
  tools?: Record<string, unknown>;
  /** `agents.defaults` beside the model, and more `model_list` entries (on the loopback vendor unless they say). */
  defaults?: Record<string, unknown>;
  models?: Array<Record<string, unknown>>;
  /** The `cluster` block: the launcher's gateway joins that cluster (#27). */
  cluster?: Record<string, unknown>;
};

const STREAMING_WEB_CHANNEL = { web: { enabled: true, type: 'pico', settings: { streaming: { enabled: true } } } };

/** The loopback model's config, the channels, info logging. */
async function writeDashboardConfig(home: string, vendorUrl: string, options: DashboardOptions): Promise<void> {
  writeConfig(home, vendorUrl, {
    streaming: true,
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.defaults ? { defaults: options.defaults } : {}),
    ...(options.models ? { models: options.models } : {}),
  });
  const path = join(home, 'config.json');
  const config = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  config.channel_list = options.channels ?? STREAMING_WEB_CHANNEL;
  config.gateway = { log_level: 'info', port: options.gatewayPort ?? (await freePort()) };
  if (options.cluster) config.cluster = options.cluster;
  writeFileSync(path, JSON.stringify(config, null, 2));
}

/**
 * A launcher with the dashboard mounted and its gateway running, already signed in; `configured: false` starts
 * with no config file (first run), else the loopback model and (by default) a streaming web-UI channel are configured.
 */
export async function startDashboard(options: DashboardOptions = {}): Promise<Dashboard> {
  const home = tempHome();
  const vendor = await startVendorServer();
  if (options.configured !== false) await writeDashboardConfig(home.home, vendor.url, options);
  const launcher = await startLauncher({ home: home.home, host: '127.0.0.1', port: 0 });
  const host = gatewayHost(home.env);
  const dashboard = mountDashboard(launcher, host);
  await host.start();
  const cookie = await setUp(launcher);
  return {
    home,
    vendor,
    launcher,
    host,
    cookie,
    close: async () => {
      dashboard.close();
      await host.close();
      await launcher.close();
      await vendor.close();
      home.remove();
    },
  };
}

/** Queues one streamed answer made of these text pieces. */
export function replyStreamed(vendor: VendorServer, pieces: string[]): void {
  vendor.reply(sse(splitBytes(completionStreamText(pieces.map((content) => ({ content }))), 4096)));
}

export type Frame = { type: string; session_id?: string; payload: Record<string, unknown> };

/** A `/pico/ws` client that collects frames until a `typing.stop` ends a reply. */
export function chatSocket(
  dashboard: Dashboard,
): Promise<{ socket: WebSocket; frames: Frame[]; send(content: string, session?: string): Promise<Frame[]> }> {
  const url = `${dashboard.launcher.url.replace('http', 'ws')}/pico/ws`;
  const socket = new WebSocket(url, { headers: { cookie: dashboard.cookie, origin: dashboard.launcher.url } });
  const frames: Frame[] = [];
  let waiting: ((frames: Frame[]) => void) | undefined;
  let from = 0;
  socket.on('message', (data) => {
    const frame = JSON.parse(String(data)) as Frame;
    frames.push(frame);
    if ((frame.type === 'typing.stop' || frame.type === 'error' || frame.type === 'pong') && waiting) {
      const done = waiting;
      waiting = undefined;
      done(frames.slice(from));
      from = frames.length;
    }
  });
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.once('open', () =>
      resolve({
        socket,
        frames,
        send: (content, session = 'webtest') =>
          new Promise((done) => {
            waiting = done;
            socket.send(JSON.stringify({ type: 'message.send', session_id: session, payload: { content } }));
          }),
      }),
    );
  });
}

/** An answer of the unpriced model `fast` in its own turn and session, recorded as a turn records it. */
export function seedUnpricedTurn(dashboard: Dashboard): void {
  const keys = { agent: 'main', session: 'sk_v1_unpriced', turn: 't_unpriced' };
  const settings = {
    model_name: 'fast',
    stream: false,
    max_tool_iterations: 5,
    loop_detection: { enabled: false, repeat_threshold: 3, critical_threshold: 6, window_size: 20 },
  };
  dashboard.host.publish({
    ...keys,
    type: 'turn.started',
    data: {
      message_id: 'm1',
      channel: 'cli',
      chat: 'direct:me',
      text: 'hello',
      session_key: 'v=1|agent=main|channel=cli|account=default|chat=direct:me',
      settings,
    },
  });
  dashboard.host.publish({
    ...keys,
    type: 'provider.requested',
    data: { model_name: 'fast', stream: false, iteration: 1, message_count: 1 },
  });
  dashboard.host.publish({
    ...keys,
    type: 'provider.responded',
    data: { text: 'hi', tool_calls: [], usage: { input_tokens: 700, output_tokens: 30 }, iteration: 1 },
  });
  dashboard.host.publish({ ...keys, type: 'turn.completed', data: { reply: 'hi', iterations: 1 } });
}
