import type { NatsConnection } from '@nats-io/transport-node';
import { clusterSettings } from '../../actors/cluster/settings.js';
import type { ClusterSettings } from '../../actors/cluster/cluster-node.js';
import type { LoadedConfig } from '../../store/config/index.js';
import type { EventStore } from '../../store/log/event-store.js';
import type { CommandContext } from './command.js';
import { CliError } from './errors.js';
import { readConfigForCli } from './load-config.js';

/**
 * The cluster a command talks to: `--cluster` or `cluster.url` (credentials from `.security.yml`); undefined when
 * neither names one. `loaded` is the config the command read, undefined when it cannot be used.
 */
export function clusterOf(context: CommandContext, loaded: LoadedConfig | undefined): ClusterSettings | undefined {
  const flag = context.values.cluster;
  // An unusable config with `--cluster`: read again for the error that says why.
  if (typeof flag === 'string') return clusterSettings(loaded ?? readConfigForCli(context.env), { url: flag });
  if (!loaded) return undefined;
  try {
    return clusterSettings(loaded);
  } catch {
    // Without a usable config the command reads this machine's log, as it did before clusters.
    return undefined;
  }
}

/** Connects as a reader (`tern-<what>`), or fails with `cluster_unreachable` saying how to fix it. */
export async function connectForCli(settings: ClusterSettings, what: string): Promise<NatsConnection> {
  const { connectCluster } = await import('../../store/cluster/connection.js');
  return connectCluster(settings.url, {
    name: `tern-${what}`,
    ...(settings.token ? { token: settings.token } : {}),
    ...(settings.user ? { user: settings.user } : {}),
    ...(settings.password ? { pass: settings.password } : {}),
  }).catch((error: Error) => {
    throw new CliError(
      'cluster_unreachable',
      `cannot reach the cluster at ${settings.url}`,
      error.message,
      'Start nats-server with -js there, or fix --cluster / cluster.url.',
    );
  });
}

export interface ClusterRead {
  /**
   * Every gateway's events (`ClusterLogView`): `seq` is the place in the view, `gateway` and `stream` say who wrote it
   * where.
   */
  log: EventStore;
  close(): Promise<void>;
}

/**
 * The cluster's events for a reading command (`tern log`, `tern inspect`, `tern replay`), or undefined when no cluster
 * is configured (the command reads this workspace's log). The NATS client loads only then: it is a fifth of what such
 * a command costs to start, and most runs read the local log.
 */
export async function openClusterRead(
  context: CommandContext,
  what: string,
  loaded: LoadedConfig | undefined,
): Promise<ClusterRead | undefined> {
  const settings = clusterOf(context, loaded);
  if (!settings) return undefined;
  const nc = await connectForCli(settings, what);
  try {
    const { ClusterLogView } = await import('../../store/log/cluster-view.js');
    const log = await ClusterLogView.open(nc);
    return {
      log,
      close: async () => {
        log.close();
        await nc.close();
      },
    };
  } catch (error) {
    await nc.close();
    throw error;
  }
}
