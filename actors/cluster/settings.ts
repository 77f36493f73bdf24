import type { LoadedConfig } from '../../store/config/index.js';
import { GATEWAY_ID, isNatsUrlList } from '../../store/config/schema/cluster.js';
import { hostname } from 'node:os';
import type { ClusterSettings } from './cluster-node.js';

/** What the command line says about the cluster; each wins over its config key. */
export interface ClusterFlags {
  url?: unknown;
  id?: unknown;
}

export class ClusterFlagError extends Error {
  readonly code = 'cluster_flag_invalid';
}

/**
 * The cluster this gateway joins: `--cluster` or `cluster.url`, its id from `--id`, `cluster.id` or the default, and
 * the credentials from `cluster` (`.security.yml`). Undefined when neither names a server: the gateway runs alone.
 */
export function clusterSettings(loaded: LoadedConfig, flags: ClusterFlags = {}): ClusterSettings | undefined {
  const block = loaded.config.cluster;
  const url = typeof flags.url === 'string' && flags.url !== '' ? flags.url : block.url;
  if (url === '') return undefined;
  if (!isNatsUrlList(url)) {
    throw new ClusterFlagError(
      `--cluster: ${JSON.stringify(url)} is not a NATS server URL (allowed: ` +
        `nats://HOST:PORT, tls://HOST:PORT, several separated by commas)`,
    );
  }
  const id = typeof flags.id === 'string' ? flags.id : (block.id ?? defaultGatewayId(loaded));
  if (!GATEWAY_ID.test(id))
    throw new ClusterFlagError(
      `--id: ${JSON.stringify(id)} is not a gateway id (allowed: 1 to 64 letters, digits, - and _)`,
    );
  return {
    url,
    id,
    ttlMs: block.lease_ttl_ms,
    partitions: block.session_partitions,
    ...(block.token ? { token: block.token.reveal() } : {}),
    ...(block.user ? { user: block.user } : {}),
    ...(block.password ? { password: block.password.reveal() } : {}),
  };
}

/** The default gateway id: the same at every restart on this machine, different for each port. */
function defaultGatewayId(loaded: LoadedConfig): string {
  return `${hostname().replace(/[^A-Za-z0-9_-]/g, '-')}-${loaded.config.gateway.port}`.slice(0, 64);
}
