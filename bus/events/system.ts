import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';

export const systemEvents = {
  /** The first event a writing process appends: turns begun before it and never ended were cut off. */
  'runtime.started': lazySchema(() => z.object({ pid: z.number().int(), command: z.string() })),
  'session.cleared': lazySchema(() => z.object({ session_key: z.string() })),
  /** Work accepted before `from_seq` was all finished: recovery after a crash reads the log from there on. */
  'recovery.checkpointed': lazySchema(() => z.object({ from_seq: z.number().int().nonnegative() })),
  /** A live actor moved between machine states; the dashboard's machines view is a fold of these. */
  'actor.transitioned': lazySchema(() =>
    z.object({
      actor: z.string(),
      machine: z.string(),
      from: z.string().optional(),
      to: z.string(),
      event: z.string(),
      /** The few context values a person reading the board needs, e.g. a session's `queued` messages. */
      context: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
    }),
  ),
  'actor.stopped': lazySchema(() =>
    z.object({ actor: z.string(), machine: z.string(), reason: z.string().optional() }),
  ),
  'heartbeat.ticked': lazySchema(() =>
    z.object({ outcome: z.enum(['ran', 'skipped']), reason: z.string().optional() }),
  ),
  'cron.fired': lazySchema(() => z.object({ job: z.string(), kind: z.string() })),
  'config.reloaded': lazySchema(() => z.object({ changed: z.array(z.string()) })),
  'config.rejected': lazySchema(() => z.object({ problems: z.array(z.string()) })),
  'gateway.started': lazySchema(() => z.object({ pid: z.number().int(), channels: z.array(z.string()) })),
  'gateway.stopping': lazySchema(() => z.object({ signal: z.string().optional() })),
  'gateway.restart.requested': lazySchema(() => z.object({ by: z.string() })),
  'gateway.start.requested': lazySchema(() => z.object({ by: z.string() })),
  'gateway.stop.requested': lazySchema(() => z.object({ by: z.string() })),
  /**
   * The event log could not write (`disk_full`, `damaged`, `write_failed`): the gateway keeps running, holds what was
   * published in memory, refuses new inbound messages (the platform keeps them) and tells their chats why. Written to
   * the log, in its place, once the log writes again.
   */
  'log.failed': lazySchema(() =>
    z.object({ code: z.enum(['disk_full', 'damaged', 'write_failed']), reason: z.string() }),
  ),
  /** The event log writes again after `failed_ms` of failing; what waited in memory is in it. */
  'log.recovered': lazySchema(() => z.object({ failed_ms: z.number().int().nonnegative() })),
  /** An event `tern log salvage` could not read back from a damaged log: its place, so that `seq` keeps no hole. */
  'log.lost': lazySchema(() => z.object({ reason: z.string() })),
  'channel.connected': lazySchema(() => z.object({ channel: z.string(), account: z.string() })),
  'channel.failed': lazySchema(() =>
    z.object({
      channel: z.string(),
      account: z.string(),
      message: z.string(),
      restart_in_ms: z.number().int().nonnegative().optional(),
    }),
  ),
} as const;
