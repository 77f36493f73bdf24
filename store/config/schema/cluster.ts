import * as z from 'zod/mini';
import { int, secret, text } from './fields.js';
import { withDefault } from './shared.js';

/** One NATS server URL: `nats://host:port` or `tls://host:port`. */
export const NATS_URL = /^(nats|tls):\/\/[^/\s:]+(:\d{1,5})?$/i;
/** Gateway ids go into KV keys and stream names: letters, digits, `-` and `_`. */
export const GATEWAY_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Whether `value` is one server URL or several separated by commas. */
export const isNatsUrlList = (value: string): boolean => value.split(',').every((url) => NATS_URL.test(url.trim()));

/** Empty runs the gateway alone. */
const natsUrls = text().check(
  z.refine((value: string) => value === '' || isNatsUrlList(value), {
    error: () =>
      'is not a NATS server URL (allowed: nats://HOST:PORT, tls://HOST:PORT, several separated by commas, or "")',
  }),
);

const gatewayId = text().check(
  z.regex(GATEWAY_ID, {
    error: (issue) => `${JSON.stringify(issue.input)} is not a gateway id (allowed: 1 to 64 letters, digits, - and _)`,
  }),
);

/**
 * `cluster`: several gateways sharing their log and work through NATS JetStream (#27). Without `url` the gateway runs
 * alone on its lmdb log, as before. `token`, or `user` and `password`, usually come from `.security.yml`.
 */
export const clusterSchema = z.object({
  url: withDefault(natsUrls, ''),
  /** This gateway's name in the cluster; default `<host name>-<gateway.port>`, the same at every restart. */
  id: z.optional(gatewayId),
  /** A gateway silent for this long is taken for dead: its channels go to another gateway. */
  lease_ttl_ms: withDefault(int(1_000, 600_000), 5_000),
  /**
   * 0: the member running a channel account runs all its sessions. N: the account's sessions hash into N partitions,
   * each a lease any member may take, so one busy bot uses every member (#40).
   */
  session_partitions: withDefault(int(0, 1_024), 0),
  token: z.optional(secret()),
  user: z.optional(text()),
  password: z.optional(secret()),
});
