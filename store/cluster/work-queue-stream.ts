import {
  JetStreamApiError,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
} from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';

/** A retried publish within this window (its `Nats-Msg-Id` seen before) is queued once. */
const DUPLICATE_WINDOW_NS = 120_000_000_000;

/**
 * Opens a work-queue stream on disk, creating it if absent. Members that start at once all find it absent; all but
 * the first then fail to add it and find it made.
 */
export async function openWorkQueue(
  nc: NatsConnection,
  stream: Pick<StreamConfig, 'name' | 'subjects'> & Partial<Pick<StreamConfig, 'max_age'>>,
): Promise<void> {
  const jsm = await jetstreamManager(nc);
  try {
    await jsm.streams.info(stream.name);
  } catch (error) {
    if (!(error instanceof JetStreamApiError && error.status === 404)) throw error;
    await jsm.streams
      .add({
        ...stream,
        storage: StorageType.File,
        retention: RetentionPolicy.Workqueue,
        duplicate_window: DUPLICATE_WINDOW_NS,
      })
      .catch(async (added: unknown) => {
        await jsm.streams.info(stream.name).catch(() => {
          throw added;
        });
      });
  }
}
