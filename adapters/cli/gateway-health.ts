import { get } from 'node:http';
import type { Config } from '../../store/config/index.js';

/** A gateway that does not answer within this is reported down. */
const HEALTH_TIMEOUT_MS = 300;

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

/** A channel as a running gateway's `/ready` reports it. */
export interface ChannelReport {
  name: string;
  /** `starting`, `connected`, `failed` (retrying), `refused` (cannot start as configured). */
  state: string;
  reason?: string;
}

/** The channels of the gateway answering at `healthUrl`, from its `/ready`; undefined when none answers. */
export function gatewayChannels(url: string): Promise<ChannelReport[] | undefined> {
  return new Promise((resolve) => {
    const request = get(url.replace(/\/health$/, '/ready'), (response) => {
      clearTimeout(deadline);
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => {
        try {
          const channels = (JSON.parse(body) as { channels?: unknown }).channels;
          resolve(Array.isArray(channels) ? (channels as ChannelReport[]) : undefined);
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
