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

/** What a running gateway's `/ready` says of its event log: `ok`, or why it cannot write (`GET /ready`'s `log`). */
export type GatewayLogState =
  | { state: 'ok' }
  | { state: 'failing'; code: string; reason: string; since: string; waiting: number };

/** The event log's state as the gateway at `healthUrl` reports it; undefined when it does not answer in time. */
export function gatewayLogState(healthUrl: string): Promise<GatewayLogState | undefined> {
  return new Promise((resolve) => {
    const request = get(healthUrl.replace(/\/health$/, '/ready'), (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        clearTimeout(deadline);
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { log?: GatewayLogState };
          resolve(body.log ?? { state: 'ok' });
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
