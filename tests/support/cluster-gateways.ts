// `tern gateway --cluster` processes for the cluster tests: their configs, and waits on what the cluster's shared
// state says (leases, the cluster log), each with a deadline and a message saying what was seen.
import type { NatsConnection } from '@nats-io/transport-node';
import type { Envelope } from '../../bus/index.js';
import { listLeases, type LeaseRecord } from '../../store/cluster/leases.js';
import type { ClusterLogView } from '../../store/log/cluster-view.js';
import type { LogQuery } from '../../store/log/event-store.js';
import { modelEntry } from './gateway-process.js';
import { until } from './eventually.js';
import { freePort } from './telegram-emulator.js';

export interface MemberConfig {
  /** The NATS server's URL. */
  url: string;
  id: string;
  modelUrl: string;
  /** `channel_list`. */
  channels: Record<string, unknown>;
  ttlMs?: number;
  /** More top-level config keys (heartbeat, agents.defaults.workspace …). */
  extra?: Record<string, unknown>;
}

/** A member's config.json: its own health port, the cluster block, the loopback model, the shared channel list. */
export async function memberConfig({
  url,
  id,
  modelUrl,
  channels,
  ttlMs = 5_000,
  extra = {},
}: MemberConfig): Promise<Record<string, unknown>> {
  return {
    gateway: { host: '127.0.0.1', port: await freePort(), log_level: 'info' },
    cluster: { url, id, lease_ttl_ms: ttlMs },
    agents: { defaults: { model: 'fast' } },
    model_list: [modelEntry(modelUrl)],
    heartbeat: { enabled: false },
    channel_list: channels,
    ...extra,
  };
}

/** Telegram bots on the emulator as `channel_list` entries named `accounts[i]`, polling every second. */
export function telegramAccounts(accounts: string[], tokens: string[], baseUrl: string): Record<string, unknown> {
  return Object.fromEntries(
    accounts.map((name, i) => [
      name,
      {
        enabled: true,
        type: 'telegram',
        settings: { token: tokens[i], base_url: baseUrl, poll_timeout_seconds: 1, allow_from: ['*'] },
      },
    ]),
  );
}

/** The leases of a kind, read without taking part (the bucket's settings stay the members'). */
export async function leasesOf(nc: NatsConnection, kind: LeaseRecord['kind']): Promise<LeaseRecord[]> {
  return (await listLeases(nc)).filter((l) => l.kind === kind);
}

/** Waits until the cluster log holds events that pass `enough`, and returns those matching `query`. */
export function logged(
  log: ClusterLogView,
  query: LogQuery,
  enough: (events: Envelope[]) => boolean,
  timeoutMs: number,
): Promise<Envelope[]> {
  return until(
    `the cluster log to show ${JSON.stringify(query)}`,
    () => {
      const events = log.read(query);
      return enough(events) ? events : undefined;
    },
    timeoutMs,
    () => log.read(query).map((e) => [e.seq, e.gateway, e.type]),
  );
}
