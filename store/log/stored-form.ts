import type { Envelope } from '../../bus/index.js';
import { isBlobKey, type BlobKey, type BlobStore } from './blobs.js';
import { numberedForm, withNames } from './named-form.js';
import type { Names } from './names.js';

/**
 * How a prompt and a checkpoint are kept in the log: what repeats from turn to turn (the system prompt, the tool list,
 * the history's messages) as blobs written once (`BlobStore`), the event holding their keys. Readers get the events
 * as they were appended: `expand` puts the values back, so replay, `--rerun` and the dashboard see the same bytes.
 * Events of logs written before this form (#38) are stored whole and read as they are.
 */
interface StoredPrompt {
  ref: 1;
  system: BlobKey;
  tools: BlobKey;
  messages: BlobKey | null;
  count: number;
}

interface StoredCheckpoint {
  ref: 1;
  summary?: BlobKey;
  messages: BlobKey | null;
  count: number;
}

type PromptData = Envelope<'prompt.built'>['data'];
type CheckpointData = Envelope<'session.compacted'>['data'];

const isStored = (data: unknown): data is { ref: 1; messages: BlobKey | null; count: number } =>
  typeof data === 'object' && data !== null && (data as { ref?: unknown }).ref === 1;

/**
 * The envelope as the log stores it: a new object where blobs replace values and numbers repeated strings
 * (`named-form.ts`); the appended one is left alone.
 */
export function compactForm(event: Envelope, blobs: BlobStore, names: Names | undefined): Envelope {
  const stored = withBlobKeys(event, blobs);
  return names ? numberedForm(stored, names, blobs) : stored;
}

function withBlobKeys(event: Envelope, blobs: BlobStore): Envelope {
  if (event.type === 'prompt.built' && !isStored(event.data)) {
    const data = event.data as PromptData;
    const messages = blobs.putList(data.messages);
    const stored: StoredPrompt = {
      ref: 1,
      system: blobs.put(data.system),
      tools: blobs.put(data.tools),
      messages: messages.key,
      count: messages.count,
    };
    return { ...event, data: stored } as unknown as Envelope;
  }
  if (event.type === 'session.compacted' && !isStored(event.data)) {
    const data = event.data as CheckpointData;
    const messages = blobs.putList(data.messages);
    const stored: StoredCheckpoint = {
      ref: 1,
      ...(data.summary !== undefined ? { summary: blobs.put(data.summary) } : {}),
      messages: messages.key,
      count: messages.count,
    };
    return { ...event, data: stored } as unknown as Envelope;
  }
  return event;
}

/** Whether an event read from the log names blobs (`compactForm`). */
export const namesBlobs = (event: Envelope): boolean =>
  (event.type === 'prompt.built' || event.type === 'session.compacted') && isStored(event.data);

/** The envelope as it was appended: the blobs it names put back in place. */
export function expand(stored: Envelope, blobs: BlobStore | undefined, names: Names | undefined): Envelope {
  const event = withNames(stored, names, blobs);
  if (!namesBlobs(event) || !blobs) return event;
  const data = event.data as unknown as StoredPrompt & StoredCheckpoint;
  const messages = blobs.getList({ key: data.messages, count: data.count });
  if (event.type === 'prompt.built') {
    const whole = { system: blobs.get(data.system), messages, tools: blobs.get(data.tools) };
    return { ...event, data: whole } as Envelope;
  }
  const whole = { ...(data.summary ? { summary: blobs.get(data.summary) } : {}), messages };
  return { ...event, data: whole } as Envelope;
}

/** The blob keys an event stored in compact form names (a list by its last node; `listKeys` walks it). */
export function namedKeys(event: Envelope): { values: BlobKey[]; list: { key: BlobKey | null; count: number } } {
  const data = event.data as unknown as Partial<StoredPrompt & StoredCheckpoint>;
  const values = [data.system, data.tools, data.summary].filter(isBlobKey);
  return { values, list: { key: data.messages ?? null, count: data.count ?? 0 } };
}
