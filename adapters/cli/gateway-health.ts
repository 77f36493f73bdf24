import { get } from 'node:http';
import type { Config } from '../../store/config/index.js';

/**
 * A gateway that does not answer within this is reported down. No gateway refuses the connection at once, so the
 * wait is only paid for one that runs: on a busy machine it can take over a second to answer and is still up.
 */
const HEALTH_TIMEOUT_MS = 2000;

/** The gateway's `/health` for this config (a wildcard host is asked on loopback). */
export function healthUrl(config: Config): string {
  const host = config.gateway.host === '0.0.0.0' || config.gateway.host === '' ? '127.0.0.1' : config.gateway.host;
  const bracketed = host.includes(':') ? `[${host}]` : host;
  return `http://${bracketed}:${config.gateway.port}/health`;
}

/** Plain `node:http`: fetch loads its client lazily, which alone can outlast the timeout on a busy machine. */
export function gatewayUp(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const request = get(url, (response) => {
      clearTimeout(deadline);
      response.resume();
      resolve(response.statusCode === 200);
    });
    const deadline = setTimeout(() => request.destroy(), HEALTH_TIMEOUT_MS);
    request.on('error', () => {
      clearTimeout(deadline);
      resolve(false);
    });
  });
}

/** The JSON body of the `/ready` of the gateway answering at `healthUrl`; undefined when none answers in time. */
function readyBody(healthUrl: string): Promise<Record<string, unknown> | undefined> {
  return new Promise((resolve) => {
    const request = get(healthUrl.replace(/\/health$/, '/ready'), (response) => {
      clearTimeout(deadline);
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => {
        try {
          const parsed: unknown = JSON.parse(body);
          resolve(parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined);
        } catch {
          resolve(undefined);
        }
      });
    });
    const deadline = setTimeout(() => request.destroy(), HEALTH_TIMEOUT_MS);
    request.on('error', () => {
      clearTimeout(deadline);
      resolve(undefined);
    });
  });
}

/** A channel as a running gateway's `/ready` reports it. */
export interface ChannelReport {
  name: string;
  /** `starting`, `connected`, `failed` (retrying), `refused` (cannot start as configured). */
  state: string;
  reason?: string;
}

/** The channels of the gateway answering at `healthUrl`, from its `/ready`; undefined when none answers. */
export async function gatewayChannels(url: string): Promise<ChannelReport[] | undefined> {
  const channels = (await readyBody(url))?.channels;
  return Array.isArray(channels) ? (channels as ChannelReport[]) : undefined;
}

/** What a running gateway's `/ready` says of its event log: `ok`, or why it cannot write (`GET /ready`'s `log`). */
export type GatewayLogState =
  | { state: 'ok' }
  | { state: 'failing'; code: string; reason: string; since: string; waiting: number };

/** The event log's state as the gateway at `healthUrl` reports it; undefined when it does not answer in time. */
export async function gatewayLogState(healthUrl: string): Promise<GatewayLogState | undefined> {
  const body = await readyBody(healthUrl);
  if (body === undefined) return undefined;
  return (body.log as GatewayLogState | undefined) ?? { state: 'ok' };
}
