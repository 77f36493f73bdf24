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

/** The first pause between reconnect attempts, doubled after each failed one up to `RECONNECT_MAX_MS`. */
const RECONNECT_FIRST_MS = 250;
export const RECONNECT_MAX_MS = 5_000;

/**
 * Connects to the cluster's NATS server and checks that JetStream is on. The connection reconnects forever after a
 * drop, backing off from 250 ms to 5 s between tries: the log and the leases wait for the server rather than fail
 * however long it is gone.
 */
export async function connectCluster(url: string, options: ClusterConnectOptions = {}): Promise<NatsConnection> {
  let nc: NatsConnection;
  let failedTries = 0;
  try {
    nc = await connect({
      servers: url,
      name: options.name,
      user: options.user,
      pass: options.pass,
      token: options.token,
      timeout: options.timeoutMs ?? 5_000,
      maxReconnectAttempts: -1,
      reconnectDelayHandler: () => Math.min(RECONNECT_MAX_MS, RECONNECT_FIRST_MS * 2 ** failedTries++),
      // Otherwise every request (each event a log appends, each KV write) builds an error with its stack up front, in
      // case it fails, on the member's busiest path (#40). A failure still says what failed and why.
      noAsyncTraces: true,
    });
  } catch (error) {
    throw new ClusterError('cluster_unreachable', `cannot reach the cluster at ${url}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  void (async () => {
    for await (const status of nc.status()) if (status.type === 'reconnect') failedTries = 0;
  })();
  try {
    await (await jetstreamManager(nc)).getAccountInfo();
  } catch (error) {
    await nc.close();
    throw new ClusterError(
      'cluster_no_jetstream',
      `the NATS server at ${url} does not have JetStream enabled (start it with -js): ${(error as Error).message}`,
      { cause: error },
    );
  }
  return nc;
}
