import session, { type SessionData } from 'express-session';
import type { SessionRecords } from '../../store/launcher/session-records.js';

export const SESSION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

type Done = (error?: unknown) => void;

function expiresAt(data: SessionData): number {
  return data.cookie.expires ? new Date(data.cookie.expires).getTime() : Date.now() + SESSION_LIFETIME_MS;
}

function plain(data: SessionData): Record<string, unknown> {
  return JSON.parse(JSON.stringify(data)) as Record<string, unknown>;
}

/** express-session's store interface over our session records (level-backed, or in memory in the fallback). */
export class RecordSessionStore extends session.Store {
  constructor(private readonly records: SessionRecords) {
    super();
  }

  override get(id: string, done: (error: unknown, data?: SessionData | null) => void): void {
    this.records.get(id).then((record) => done(null, record ? (record.data as unknown as SessionData) : null), done);
  }

  override set(id: string, data: SessionData, done: Done = () => {}): void {
    this.records.put(id, { data: plain(data), expires: expiresAt(data) }).then(() => done(), done);
  }

  override touch(id: string, data: SessionData, done: () => void = () => {}): void {
    this.records.put(id, { data: plain(data), expires: expiresAt(data) }).then(done, done);
  }

  override destroy(id: string, done: Done = () => {}): void {
    this.records.delete(id).then(() => done(), done);
  }
}
