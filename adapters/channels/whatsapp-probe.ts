// `tern doctor`'s check of a WhatsApp channel, in the mode its fields choose (as the gateway does): the Cloud API's
// phone number asked for with the access token; a linked device's session folder holding its keys; an external
// bridge accepting a connection.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fetchOn } from '../http/client.js';
import { isSecret, type ChannelEntry } from '../../store/config/index.js';
import { ChannelError } from './channel.js';
import type { ProbeResult } from './probe.js';

const TIMEOUT_MS = 10_000;
const GRAPH_API = 'https://graph.facebook.com';

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

/** `GET /{version}/{phone_number_id}`: the number as shown and its verified name, the call the channel starts with. */
async function cloud(name: string, settings: Record<string, unknown>, phoneId: string): Promise<ProbeResult> {
  const token = isSecret(settings.access_token) ? settings.access_token.reveal() : '';
  if (token === '') throw new ChannelError('bad_settings', `channel_list.${name}.settings.access_token is missing`);
  const base = (text(settings.base_url) ?? GRAPH_API).replace(/\/+$/, '');
  const version = text(settings.api_version) ?? 'v21.0';
  const proxy = text(settings.proxy);
  const response = await fetchOn(proxy ? { proxy } : {})(
    `${base}/${version}/${phoneId}?fields=display_phone_number,verified_name`,
    { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(TIMEOUT_MS) },
  );
  const body = (await response.json().catch(() => ({}))) as {
    display_phone_number?: string;
    verified_name?: string;
    error?: { message?: string };
  };
  if (response.status !== 200) {
    const why = `${response.status} ${body.error?.message ?? ''}`.trim();
    throw new ChannelError(
      response.status === 401 ? 'unauthorized' : 'platform',
      `the phone number was refused (${why})`,
    );
  }
  const named = body.verified_name ? ` (${body.verified_name})` : '';
  return { ok: true, detail: `reachable as ${body.display_phone_number ?? phoneId}${named}` };
}

/** Baileys keeps a linked device's credentials in `creds.json` of the session folder once its QR code was scanned. */
function linked(name: string, settings: Record<string, unknown>): ProbeResult {
  const home = process.env.AGENT_HOME || join(homedir(), '.agent');
  const dir = text(settings.session_store_path) ?? join(home, 'whatsapp', name);
  if (existsSync(join(dir, 'creds.json'))) return { ok: true, detail: `linked (the device's keys are in ${dir})` };
  return {
    ok: false,
    detail: `not linked yet (no keys in ${dir}): start the gateway and scan its QR code under Linked devices`,
  };
}

/** One WebSocket opened to the bridge and closed again. */
async function bridge(url: string): Promise<ProbeResult> {
  const { WebSocket } = await import('ws');
  const socket = new WebSocket(url, { handshakeTimeout: TIMEOUT_MS });
  return new Promise((resolve) => {
    socket.once('open', () => {
      socket.close();
      resolve({ ok: true, detail: `the bridge at ${url} accepts a connection` });
    });
    socket.once('error', (error: Error & { code?: string }) =>
      resolve({ ok: false, detail: `the bridge at ${url} is unreachable (${error.code ?? error.message})` }),
    );
  });
}

export async function whatsapp(name: string, entry: ChannelEntry): Promise<ProbeResult> {
  const settings = entry.settings as Record<string, unknown>;
  const phoneId = text(settings.phone_number_id);
  if (phoneId) return cloud(name, settings, phoneId);
  if (settings.use_native === true) return linked(name, settings);
  const url = text(settings.bridge_url);
  if (url) return bridge(url);
  throw new ChannelError(
    'bad_settings',
    `channel_list.${name}.settings needs phone_number_id (Cloud API), use_native: true or bridge_url`,
  );
}
