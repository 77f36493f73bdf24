import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { ClusterError } from './errors.js';

export interface ClusterCredentials {
  user?: string;
  pass?: string;
  token?: string;
}

export interface ClusterConnectOptions extends ClusterCredentials {
  /** The connection's name as the server lists it (the gateway id). */
  name?: string;
  /** How long to wait for the server at start, in ms. */
  timeoutMs?: number;
}

/**
 * Connects to the cluster's NATS server and checks that JetStream is on. The connection reconnects forever after a
 * drop: the log, the bus and the leases wait for the server rather than fail while it restarts.
 */
export async function connectCluster(url: string, options: ClusterConnectOptions = {}): Promise<NatsConnection> {
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: url,
      name: options.name,
      user: options.user,
      pass: options.pass,
      token: options.token,
      timeout: options.timeoutMs ?? 5_000,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
    });
  } catch (error) {
    throw new ClusterError('cluster_unreachable', `cannot reach the cluster at ${url}: ${(error as Error).message}`, { cause: error });
  }
  try {
    await (await jetstreamManager(nc)).getAccountInfo();
  } catch (error) {
    await nc.close();
    throw new ClusterError('cluster_no_jetstream', `the NATS server at ${url} does not have JetStream enabled (start it with -js): ${(error as Error).message}`, { cause: error });
  }
  return nc;
}
