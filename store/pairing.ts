import { randomInt } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from './config/files.js';
import { agentHome } from './paths.js';

/** In `AGENT_HOME`, owner-only: who may talk to the bot is as sensitive as a key. */
export const PAIRING_FILE = 'pairing.json';
/** A code is good for an hour, and a sender gets at most one an hour. */
export const CODE_TTL_MS = 60 * 60 * 1000;
/** Strangers waiting in one channel at a time; more get no code until one is decided or expires. */
export const MAX_PENDING_PER_CHANNEL = 3;
/** Eight letters and digits without the ones people confuse (0 O 1 I). */
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 8;
const LOCK_WAIT_MS = 5_000;
/** A lock file older than this was left by a process that died while holding it. */
const STALE_LOCK_MS = 10_000;

const requestSchema = z.object({
  code: z.string(),
  /** The `channel_list` entry. */
  channel: z.string(),
  account: z.string(),
  sender: z.string(),
  /** The sender's other forms (`@username`), for the owner to recognise them. */
  aliases: z.array(z.string()).default([]),
  chat: z.string(),
  /** The platform's address of the chat, where the approval notice goes. */
  reply_to: z.string(),
  created_at: z.string(),
  expires_at: z.string(),
});
export type PairingRequest = z.infer<typeof requestSchema>;

const approvedSchema = requestSchema.omit({ expires_at: true }).extend({
  approved_at: z.string(),
  by: z.string(),
  /** The sender has been told (by a running gateway) that they are in. */
  notified: z.boolean().default(false),
});
export type ApprovedSender = z.infer<typeof approvedSchema>;

const queuedSchema = z.object({
  /** Matches the decision to its answer in the event log. */
  request: z.string(),
  code: z.string(),
  decision: z.enum(['approve', 'deny']),
  by: z.string(),
});
/** A decision `tern pairing` hands to the gateway that holds the event log. */
export type QueuedDecision = z.infer<typeof queuedSchema>;

const fileSchema = z.object({
  version: z.literal(1),
  requests: z.array(requestSchema).default([]),
  approved: z.array(approvedSchema).default([]),
  /** `<channel> <sender>` → when their last code was issued: one code an hour per sender, whatever became of it. */
  issued: z.record(z.string(), z.string()).default({}),
  /** Decisions for the gateway that holds the event log to take (`tern pairing` while it runs). */
  inbox: z.array(queuedSchema).default([]),
});
type PairingState = z.infer<typeof fileSchema>;

const empty = (): PairingState => ({ version: 1, requests: [], approved: [], issued: {}, inbox: [] });

export class PairingFileError extends Error {
  constructor(
    readonly code: 'pairing_unreadable' | 'pairing_locked',
    message: string,
  ) {
    super(message);
    this.name = 'PairingFileError';
  }
}

export type RequestOutcome =
  | { kind: 'issued'; request: PairingRequest }
  /** A code went to this sender less than an hour ago: nothing is sent again. */
  | { kind: 'limited' }
  /** `MAX_PENDING_PER_CHANNEL` strangers already wait in this channel. */
  | { kind: 'full' };

export type DecisionOutcome =
  | { kind: 'decided'; request: PairingRequest }
  | { kind: 'unknown' }
  | { kind: 'expired'; request: PairingRequest };

/** `ab2c-d3ef` → `AB2CD3EF`: a code as people type it back. */
export const normalizeCode = (code: string): string => code.toUpperCase().replace(/[^A-Z0-9]/g, '');

const key = (channel: string, sender: string): string => `${channel} ${sender}`;

const sleep = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

/**
 * The senders the owner let into channels without `allow_from` (pairing), and the requests that wait: one JSON file
 * (0600) in `AGENT_HOME`, read and written by the gateway (requests, decisions) and `tern pairing` (decisions, or
 * decisions queued for a running gateway), each change under a lock file and written atomically, so neither loses the
 * other's.
 */
export class PairingStore {
  readonly path: string;
  private cache: { stamp: string; state: PairingState } | undefined;

  constructor(home: string) {
    this.path = join(home, PAIRING_FILE);
  }

  static of(env: NodeJS.ProcessEnv): PairingStore {
    return new PairingStore(agentHome(env));
  }

  /** Whether the owner approved `sender` for `channel` (read again whenever the file changed). */
  isApproved(channel: string, sender: string): boolean {
    return this.read().approved.some((a) => a.channel === channel && a.sender === sender);
  }

  /** Requests still waiting, oldest first. */
  pending(now: number): PairingRequest[] {
    return this.read().requests.filter((r) => Date.parse(r.expires_at) > now);
  }

  approved(): ApprovedSender[] {
    return this.read().approved;
  }

  /** A code for a stranger: new when none was issued to them within the hour and the channel has room. */
  request(input: Omit<PairingRequest, 'code' | 'created_at' | 'expires_at'>, now: number): RequestOutcome {
    return this.update((state) => {
      prune(state, now);
      if (state.issued[key(input.channel, input.sender)] !== undefined) return { kind: 'limited' };
      if (state.requests.filter((r) => r.channel === input.channel).length >= MAX_PENDING_PER_CHANNEL)
        return { kind: 'full' };
      const taken = new Set(state.requests.map((r) => r.code));
      let code = newCode();
      while (taken.has(code)) code = newCode();
      const request = {
        ...input,
        code,
        created_at: new Date(now).toISOString(),
        expires_at: new Date(now + CODE_TTL_MS).toISOString(),
      };
      state.requests.push(request);
      state.issued[key(input.channel, input.sender)] = request.created_at;
      return { kind: 'issued', request };
    });
  }

  /**
   * The owner's decision on `code`: an approved sender is kept for good; a denied one gets no new code within the hour.
   */
  decide(code: string, decision: 'approve' | 'deny', by: string, now: number): DecisionOutcome {
    const wanted = normalizeCode(code);
    return this.update((state) => {
      const request = state.requests.find((r) => r.code === wanted);
      if (!request) return { kind: 'unknown' };
      state.requests = state.requests.filter((r) => r !== request);
      if (Date.parse(request.expires_at) <= now) return { kind: 'expired', request };
      if (decision === 'approve') {
        const { expires_at: _, ...rest } = request;
        const others = state.approved.filter((a) => a.channel !== request.channel || a.sender !== request.sender);
        state.approved = [...others, { ...rest, approved_at: new Date(now).toISOString(), by, notified: false }];
      }
      return { kind: 'decided', request };
    });
  }

  /** Hands a decision to the gateway that holds the event log (it looks every 2 s). */
  queueDecision(decision: QueuedDecision): void {
    this.update((state) => void state.inbox.push(decision));
  }

  /** The decisions queued for this process, each handed over once. */
  takeQueued(): QueuedDecision[] {
    if (this.read().inbox.length === 0) return [];
    return this.update((state) => state.inbox.splice(0));
  }

  /** Approved senders not told yet of the channels `which` picks, marked as told (the caller tells them). */
  takeUnnotified(which: (channel: string) => boolean): ApprovedSender[] {
    if (this.read().approved.every((a) => a.notified || !which(a.channel))) return [];
    return this.update((state) => {
      const fresh = state.approved.filter((a) => !a.notified && which(a.channel));
      for (const approved of fresh) approved.notified = true;
      return fresh.map((a) => ({ ...a }));
    });
  }

  /** The file as it is now; the last read again while its size and time are unchanged. */
  private read(): PairingState {
    const stats = statSync(this.path, { throwIfNoEntry: false });
    if (!stats) return empty();
    const stamp = `${stats.mtimeMs}:${stats.size}:${stats.ino}`;
    if (this.cache?.stamp === stamp) return this.cache.state;
    let parsed: z.ZodSafeParseResult<PairingState>;
    try {
      parsed = fileSchema.safeParse(JSON.parse(readFileSync(this.path, 'utf8')));
    } catch (error) {
      throw new PairingFileError('pairing_unreadable', `${this.path} cannot be read (${(error as Error).message})`);
    }
    if (!parsed.success)
      throw new PairingFileError(
        'pairing_unreadable',
        `${this.path} is not a pairing file (${parsed.error.issues[0]?.message ?? 'bad shape'})`,
      );
    this.cache = { stamp, state: parsed.data };
    return parsed.data;
  }

  /** One change under the lock: read, change, write (only when something changed). */
  private update<T>(change: (state: PairingState) => T): T {
    const release = this.lock();
    try {
      this.cache = undefined;
      const state = structuredClone(existsSync(this.path) ? this.read() : empty());
      const before = JSON.stringify(state);
      const result = change(state);
      if (JSON.stringify(state) !== before) {
        writeFileAtomic(this.path, `${JSON.stringify(state, null, 2)}\n`);
        this.cache = undefined;
      }
      return result;
    } finally {
      release();
    }
  }

  private lock(): () => void {
    const lockPath = `${this.path}.lock`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        closeSync(openSync(lockPath, 'wx', 0o600));
        return () => rmSync(lockPath, { force: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const held = statSync(lockPath, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > STALE_LOCK_MS) rmSync(lockPath, { force: true });
      else if (Date.now() > deadline)
        throw new PairingFileError('pairing_locked', `${lockPath} is held by another process`);
      else sleep(10);
    }
  }
}

function newCode(): string {
  return Array.from({ length: CODE_LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
}

/** Expired requests leave the list; a sender's last code stops counting after an hour. */
function prune(state: PairingState, now: number): void {
  state.requests = state.requests.filter((r) => Date.parse(r.expires_at) > now);
  for (const [who, at] of Object.entries(state.issued))
    if (Date.parse(at) + CODE_TTL_MS <= now) delete state.issued[who];
}
