import type { Subscription } from 'rxjs';
import type { Bus, Envelope } from '../../bus/index.js';
import { typeMatcher } from '../../bus/index.js';
import { readRegular, writeAtomic } from '../files/regular-file.js';
import type { EventStore } from '../log/event-store.js';
import { holdStateDir } from '../state.js';
import { ConversationFold, RECALL_EVENT_TYPES, type FoldState } from './conversation-fold.js';
import { MemoryFilesIndex, readMemoryFile, type FileHit } from './memory-files.js';
import {
  RecallIndex,
  SNAPSHOT_VERSION,
  type ChunkHit,
  type RecallSnapshot,
  type RecallViewer,
  type TurnRow,
} from './recall-index.js';
import { processTerm } from './terms.js';

const SNAPSHOT_FILE = 'memory-index.json';
const SNIPPET_CHARS = 700;

export type RecallResult =
  | ({ source: 'memory' } & Omit<FileHit, 'text'> & { snippet: string; citation: string })
  | {
      source: 'sessions';
      score: number;
      session: string;
      turn_id: string;
      at: string;
      snippet: string;
      citation: string;
    };

/** A past turn read back from the log. */
export interface RecalledTurn {
  turn_id: string;
  session: string;
  at: string;
  user: string;
  assistant: string;
}

const clip = (text: string): string => (text.length > SNIPPET_CHARS ? `${text.slice(0, SNIPPET_CHARS)}…` : text);

/**
 * Recall over the memory files and the agent's past conversations. The conversation index is a projection of the
 * log: it is saved to `state/memory-index.json` to start fast, and when that file is missing or unreadable it is
 * rebuilt from the log; each ended turn is added as its event passes on the bus.
 */
export class Recall {
  private fold: ConversationFold;
  private index: RecallIndex;
  private readonly files = new Map<string, MemoryFilesIndex>();
  private subscription: Subscription | undefined;
  private readonly isRecallEvent = typeMatcher(RECALL_EVENT_TYPES);

  private readonly textOf = (row: TurnRow): string => {
    const { user, assistant } = this.words(row.asked, row.answered);
    return assistant ? `${user}\n${assistant}` : user;
  };

  private constructor(
    private readonly log: EventStore,
    private readonly workspace: string,
    saved?: { fold: FoldState; index: RecallSnapshot },
  ) {
    this.fold = saved ? ConversationFold.restore(saved.fold) : new ConversationFold();
    this.index = saved ? RecallIndex.restore(saved.index, this.textOf) : new RecallIndex(this.textOf);
  }

  /** Opens recall from the saved index (when there is one and the log still reaches it) and folds the rest of the log. */
  static open(log: EventStore, workspace: string): Recall {
    const saved = readSnapshot(workspace);
    const recall =
      saved && saved.index.position <= log.lastCommittedSeq()
        ? new Recall(log, workspace, saved)
        : new Recall(log, workspace);
    recall.catchUp();
    return recall;
  }

  get turns(): number {
    return this.index.size;
  }

  get position(): number {
    return this.index.position;
  }

  /** Keeps recall current from the bus: the bus is buffered while the log is read, so nothing is missed or added twice. */
  async follow(bus: Bus): Promise<void> {
    let buffer: Envelope[] | undefined = [];
    this.subscription = bus.events$.subscribe((event) => (buffer ? buffer.push(event) : this.take(event)));
    await this.log.committed();
    this.catchUp();
    const pending = buffer;
    buffer = undefined;
    pending.forEach((event) => this.take(event));
  }

  /** Drops the index and builds it again from the whole log. */
  reindex(): void {
    this.fold = new ConversationFold();
    this.index = new RecallIndex(this.textOf);
    this.catchUp();
  }

  /** The best passages of the memory files of `workspace` (default: the log's) and of the turns `viewer` may see. */
  search(query: string, viewer: RecallViewer, limit: number, workspace = this.workspace): RecallResult[] {
    let index = this.files.get(workspace);
    if (!index) this.files.set(workspace, (index = new MemoryFilesIndex(workspace)));
    const files: RecallResult[] = index.find(query, limit).map(({ text, ...hit }) => ({
      source: 'memory',
      ...hit,
      snippet: clip(text),
      citation: `${hit.path}#L${hit.startLine}-L${hit.endLine}`,
    }));
    const turns: RecallResult[] = this.index.find(query, viewer, limit).map((hit) => this.turnResult(hit));
    return [...files, ...turns].sort((a, b) => b.score - a.score).slice(0, limit);
  }

  /** A memory file's text, or undefined when `path` names none. */
  file(path: string, workspace = this.workspace): string | undefined {
    return readMemoryFile(workspace, path.replace(/^\.\//, ''));
  }

  /** A past turn `viewer` may see, or undefined. */
  turn(turnId: string, viewer: RecallViewer): RecalledTurn | undefined {
    const row = this.index.turn(turnId, viewer);
    if (!row) return undefined;
    const { user, assistant } = this.words(row.asked, row.answered);
    return { turn_id: turnId, session: row.session, at: new Date(row.at).toISOString(), user, assistant };
  }

  save(report: (problem: string) => void = () => {}): void {
    const snapshot = { ...this.index.snapshot(), fold: this.fold.state() };
    try {
      const dir = holdStateDir(this.workspace, true);
      try {
        writeAtomic(dir, SNAPSHOT_FILE, JSON.stringify(snapshot));
      } finally {
        dir.close();
      }
    } catch (error) {
      report(`the memory index was not saved (it is rebuilt from the log next time): ${(error as Error).message}`);
    }
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  private catchUp(): void {
    const last = this.log.lastCommittedSeq();
    this.index.beginBulk();
    try {
      for (const event of this.log.iterate({ type: RECALL_EVENT_TYPES, after: this.index.position, order: 'asc' }))
        this.take(event);
    } finally {
      this.index.endBulk();
    }
    this.index.position = Math.max(this.index.position, last);
  }

  private take(event: Envelope): void {
    if (event.seq <= this.index.position) return;
    this.index.position = event.seq;
    if (!this.isRecallEvent(event.type)) return;
    const change = this.fold.apply(event);
    if (change) this.index.apply(change);
  }

  private words(asked: number, answered: number): { user: string; assistant: string } {
    const question = this.log.get(asked);
    const reply = answered ? this.log.get(answered) : undefined;
    return {
      user: question?.type === 'turn.started' ? question.data.text : '',
      assistant:
        reply && 'data' in reply && typeof (reply.data as { reply?: unknown }).reply === 'string'
          ? (reply.data as { reply: string }).reply
          : '',
    };
  }

  /** The turn of a passage that holds most of the matched terms (the earliest of equals): the one to cite. */
  private turnResult(hit: ChunkHit): RecallResult {
    const wanted = new Set(hit.terms);
    let best = hit.turns[0]!;
    let bestWords = this.words(best.asked, best.answered);
    let bestCount = -1;
    for (const row of hit.turns) {
      const words = row === best ? bestWords : this.words(row.asked, row.answered);
      const count = `${words.user} ${words.assistant}`.split(/[\p{Z}\p{P}\s]+/u).filter((t) => {
        const term = processTerm(t);
        return term !== null && wanted.has(term);
      }).length;
      if (count > bestCount) [best, bestWords, bestCount] = [row, words, count];
    }
    const at = new Date(best.at).toISOString();
    const { user, assistant } = bestWords;
    return {
      source: 'sessions',
      score: hit.score,
      session: best.session,
      turn_id: best.turn,
      at,
      snippet: clip(assistant ? `user: ${user}\nassistant: ${assistant}` : `user: ${user}`),
      citation: `turn ${best.turn} (${at})`,
    };
  }
}

function readSnapshot(workspace: string): { fold: FoldState; index: RecallSnapshot } | undefined {
  try {
    const dir = holdStateDir(workspace);
    try {
      const bytes = readRegular(dir, SNAPSHOT_FILE);
      if (!bytes) return undefined;
      const snapshot = JSON.parse(bytes.toString('utf8')) as RecallSnapshot & { fold: FoldState };
      if (snapshot.version !== SNAPSHOT_VERSION) return undefined;
      return { fold: snapshot.fold, index: snapshot };
    } finally {
      dir.close();
    }
  } catch {
    return undefined;
  }
}
