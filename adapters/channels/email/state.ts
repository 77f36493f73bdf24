import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import * as z from 'zod';

/** One message of a thread as Tern remembers it: the thread's first message, and what a reply to it must carry. */
const threadSchema = z.object({ root: z.string(), subject: z.string(), references: z.array(z.string()) });
export type ThreadEntry = z.infer<typeof threadSchema>;

const stateSchema = z.object({
  uidValidity: z.string().optional(),
  lastUid: z.number().int().min(0).default(0),
  threads: z.record(z.string(), threadSchema).default({}),
  /** The last mail taken in each thread, by the thread's first Message-ID: what a reply answers. */
  latest: z.record(z.string(), z.string()).default({}),
});

/** Message-IDs remembered; older ones fall out (a reply to them starts a new session). */
const MAX_THREAD_ENTRIES = 5000;

/** Sets `key` as the newest entry of `record`; the oldest fall out past the limit. */
function bounded<T>(record: Record<string, T>, key: string, value: T): void {
  delete record[key];
  record[key] = value;
  const keys = Object.keys(record);
  for (const old of keys.slice(0, Math.max(0, keys.length - MAX_THREAD_ENTRIES))) delete record[old];
}

/**
 * What the Email channel keeps across restarts in `<AGENT_HOME>/email/<name>/state.json` (owner-only): the mailbox's
 * UIDVALIDITY and the last UID taken, so a restart neither answers old mail again nor misses new mail, and the threads
 * by Message-ID, so a reply continues its thread's session.
 */
export class EmailState {
  private data: z.output<typeof stateSchema>;

  constructor(private readonly file: string) {
    let raw: unknown = {};
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      // No state yet (or an unreadable one): the mailbox's current end is taken as the start.
    }
    const parsed = stateSchema.safeParse(raw);
    this.data = parsed.success ? parsed.data : stateSchema.parse({});
  }

  /** The last UID taken in a mailbox of this UIDVALIDITY, or undefined when the mailbox is new to Tern. */
  lastUid(uidValidity: string): number | undefined {
    return this.data.uidValidity === uidValidity ? this.data.lastUid : undefined;
  }

  taken(uidValidity: string, uid: number): void {
    this.data.uidValidity = uidValidity;
    this.data.lastUid = Math.max(uid, this.data.uidValidity === uidValidity ? this.data.lastUid : 0);
    this.save();
  }

  thread(messageId: string): ThreadEntry | undefined {
    return this.data.threads[messageId];
  }

  /** The mail a reply in this thread answers. */
  latest(root: string): string | undefined {
    return this.data.latest[root];
  }

  /** A mail of a thread; `inbound` ones are what Tern's next reply in the thread answers. */
  remember(messageId: string, entry: ThreadEntry, inbound: boolean): void {
    bounded(this.data.threads, messageId, entry);
    if (inbound) bounded(this.data.latest, entry.root, messageId);
    this.save();
  }

  private save(): void {
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(this.data), { mode: 0o600 });
    renameSync(temporary, this.file);
  }
}
