import { z } from 'zod/mini';
import { int, secret, text } from './fields.js';
import { withDefault } from './shared.js';

/** `nats://host:port` (or `tls://`), one server or several separated by commas; empty runs the gateway alone. */
const natsUrls = text().check(
  z.refine((value: string) => value === '' || value.split(',').every((url) => /^(nats|tls):\/\/[^/\s:]+(:\d{1,5})?$/i.test(url.trim())), {
    error: () => 'is not a NATS server URL (allowed: nats://HOST:PORT, tls://HOST:PORT, several separated by commas, or "")',
  }),
);

/** Gateway ids go into KV keys and stream names: letters, digits, `-` and `_`. */
const gatewayId = text().check(
  z.regex(/^[A-Za-z0-9_-]{1,64}$/, { error: (issue) => `${JSON.stringify(issue.input)} is not a gateway id (allowed: 1 to 64 letters, digits, - and _)` }),
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
  token: z.optional(secret()),
  user: z.optional(text()),
  password: z.optional(secret()),
});
