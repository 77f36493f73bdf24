/** A dashboard session as stored: the session data and when it lapses (ms since epoch). */
export type SessionRecord = { data: Record<string, unknown>; expires: number };

export interface SessionRecords {
  get(id: string): Promise<SessionRecord | undefined>;
  put(id: string, record: SessionRecord): Promise<void>;
  delete(id: string): Promise<void>;
}

/** The part of a level sublevel (JSON values) that session records use. */
export interface RecordLevel {
  get(id: string): Promise<SessionRecord | undefined>;
  put(id: string, record: SessionRecord): Promise<void>;
  del(id: string): Promise<void>;
  iterator(): AsyncIterable<[string, SessionRecord]>;
}

function live(record: SessionRecord | undefined, now: number): record is SessionRecord {
  return record !== undefined && record.expires > now;
}

/** Sessions in `launcher-auth.db`: they survive a launcher restart. */
export function levelSessionRecords(level: RecordLevel): SessionRecords {
  return {
    async get(id) {
      const record = await level.get(id);
      if (live(record, Date.now())) return record;
      if (record) await level.del(id);
      return undefined;
    },
    put: (id, record) => level.put(id, record),
    delete: (id) => level.del(id),
  };
}

/** Sessions in memory, used only when `launcher-auth.db` cannot be opened: they end with the process. */
export function memorySessionRecords(): SessionRecords {
  const records = new Map<string, SessionRecord>();
  return {
    async get(id) {
      const record = records.get(id);
      if (live(record, Date.now())) return record;
      records.delete(id);
      return undefined;
    },
    async put(id, record) {
      records.set(id, record);
    },
    async delete(id) {
      records.delete(id);
    },
  };
}

/** Drops lapsed sessions so the database does not grow with abandoned logins. */
export async function pruneSessions(level: RecordLevel): Promise<void> {
  const now = Date.now();
  for await (const [id, record] of level.iterator()) {
    if (record.expires <= now) await level.del(id);
  }
}
