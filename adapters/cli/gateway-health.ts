import { get } from 'node:http';
import * as z from 'zod';
import type { Config } from '../../store/config/index.js';

/**
 * A gateway that does not answer within this is reported down. No gateway refuses the connection at once, so the
 * wait is only paid for one that runs: on a busy machine it can take over a second to answer and is still up.
 */
export const HEALTH_TIMEOUT_MS = 2000;

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

/** What a gateway's `GET /ready` answers (actors/gateway/health-server.ts), 200 or 503 alike. */
const readySchema = z.object({
  status: z.enum(['ready', 'starting', 'cannot_start', 'degraded']),
  channels: z.array(z.object({ name: z.string(), state: z.string(), reason: z.string().optional() })),
  log: z
    .object({
      state: z.literal('failing'),
      code: z.string(),
      reason: z.string(),
      since: z.string(),
      waiting: z.number(),
    })
    .optional(),
});

/** A running gateway's `/ready`: how far it is, its channels and, while it cannot write, its event log. */
export type GatewayReady = z.infer<typeof readySchema>;

/** A channel as a running gateway's `/ready` reports it: `starting`, `connected`, `failed` (retrying), `refused`. */
export type ChannelReport = GatewayReady['channels'][number];

/** What `/ready` says of the event log: `ok`, or why it cannot write. */
export type GatewayLogState = NonNullable<GatewayReady['log']> | { state: 'ok' };

/**
 * The `/ready` of the gateway answering at `healthUrl`; undefined when it does not answer within the timeout, or
 * answers with something else than a gateway's `/ready` (another program on the port).
 */
export function gatewayReady(healthUrl: string): Promise<GatewayReady | undefined> {
  return new Promise((resolve) => {
    const request = get(healthUrl.replace(/\/health$/, '/ready'), (response) => {
      clearTimeout(deadline);
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => {
        try {
          const parsed = readySchema.safeParse(JSON.parse(body));
          resolve(parsed.success ? parsed.data : undefined);
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
