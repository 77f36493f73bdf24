import type { Subscription } from 'rxjs';
import type { MemoryHit } from '../../bus/api-shapes.js';
import type { Bus, Envelope } from '../../bus/index.js';
import { typeMatcher } from '../../bus/index.js';
import { readRegular, writeAtomic } from '../files/regular-file.js';
import type { EventStore } from '../log/event-store.js';
import { holdStateDir } from '../state.js';
import { ConversationFold, RECALL_EVENT_TYPES, type FoldState } from './conversation-fold.js';
import { EmbeddingCache, type Embedder } from './embedding-cache.js';
import { cosine, fuse } from './hybrid.js';
import { MemoryFilesIndex, readMemoryFile, type FileChunk, type FileHit } from './memory-files.js';
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
/** How many hits of each ranking (words, meaning) hybrid search merges, at least. */
const POOL = 20;
const SNIPPET_CHARS = 700;

/** A hit as `memory_search`, `tern memory search` and `/api/memory/search` give it. */
export type RecallResult = MemoryHit;

export interface RecallOptions {
  /** The embedding model of the config now, or none: recall then ranks by words alone. */
  embedder?: () => Embedder | undefined;
  /** Where a problem goes that recall works around (the gateway's log, the CLI's stderr). */
  report?: (problem: string) => void;
}

/** A past turn read back from the log. */
export interface RecalledTurn {
  turn_id: string;
  session: string;
  at: string;
  user: string;
  assistant: string;
}

interface TurnWords {
  turn: string;
  at: number;
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
  private readonly cache: EmbeddingCache;
  /** Each indexed turn's vector, by its number in the index, for the model named in `vectorModel`. */
  private turnVectors = new Map<number, Float32Array>();
  private vectorModel = '';
  private readonly isRecallEvent = typeMatcher(RECALL_EVENT_TYPES);

  /** What a turn's embedding is made of: the user's message and the reply. */
  private readonly textOf = (row: TurnRow): string => {
    const { user, assistant } = this.words(row.asked, row.answered);
    return assistant ? `${user}\n${assistant}` : user;
  };

  /** What the full-text index holds of a turn: the user's words (see `ConversationTurn.text`). */
  private readonly indexedOf = (row: TurnRow): string => this.words(row.asked, 0).user;

  private constructor(
    private readonly log: EventStore,
    private readonly workspace: string,
    private readonly options: RecallOptions,
    saved?: { fold: FoldState; index: RecallSnapshot },
  ) {
    this.cache = new EmbeddingCache(workspace);
    this.fold = saved ? ConversationFold.restore(saved.fold) : new ConversationFold();
    this.index = saved ? RecallIndex.restore(saved.index, this.indexedOf) : new RecallIndex(this.indexedOf);
  }

  /**
   * Opens recall from the saved index (when there is one and the log still reaches it) and folds the rest of the log.
   */
  static open(log: EventStore, workspace: string, options: RecallOptions = {}): Recall {
    const saved = readSnapshot(workspace);
    const recall =
      saved && saved.index.position <= log.lastCommittedSeq()
        ? new Recall(log, workspace, options, saved)
        : new Recall(log, workspace, options);
    recall.catchUp();
    return recall;
  }

  get turns(): number {
    return this.index.size;
  }

  get position(): number {
    return this.index.position;
  }

  /**
   * Keeps recall current from the bus: the bus is buffered while the log is read, so nothing is missed or added twice.
   */
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
    this.index = new RecallIndex(this.indexedOf);
    this.turnVectors = new Map();
    this.catchUp();
  }

  /**
   * What `find` gives without an embedding model: the best passages of the memory files of `workspace` (default: the
   * log's) and of the turns `viewer` may see, by words alone (BM25).
   */
  search(query: string, viewer: RecallViewer, limit: number, workspace = this.workspace): RecallResult[] {
    const files: RecallResult[] = this.filesOf(workspace)
      .find(query, limit)
      .map(({ text, ...hit }) => fileResult(hit, text));
    const turns: RecallResult[] = this.index.find(query, viewer, limit).map((hit) => this.turnResult(hit));
    return [...files, ...turns].sort((a, b) => b.score - a.score).slice(0, limit);
  }

  /**
   * Recall: by words alone, or with `embedding_model` set also by meaning (cosine of embeddings), the two rankings
   * merged by reciprocal rank fusion. Both see only what `viewer` may see.
   */
  async find(query: string, viewer: RecallViewer, limit: number, workspace = this.workspace): Promise<RecallResult[]> {
    const embedder = this.options.embedder?.();
    if (!embedder) return this.search(query, viewer, limit, workspace);
    const pool = Math.max(POOL, limit * 4);
    const byWords = this.search(query, viewer, pool, workspace);
    let byMeaning: Map<string, (score: number) => RecallResult>;
    try {
      byMeaning = await this.byMeaning(embedder, query, viewer, pool, workspace);
    } catch (error) {
      // Words still answer while the embedding model cannot: recall degrades, it does not fail.
      this.options.report?.(`memory search by meaning failed, words only: ${(error as Error).message}`);
      return byWords.slice(0, limit);
    }
    const known = new Map(byWords.map((r) => [resultKey(r), r]));
    return fuse([[...known.keys()], [...byMeaning.keys()]])
      .slice(0, limit)
      .map(({ key, score }) => {
        const hit = known.get(key);
        return hit ? { ...hit, score } : byMeaning.get(key)!(score);
      });
  }

  /** The passages and turns nearest `query` in meaning, best first, by key, each with how to make its result. */
  private async byMeaning(
    embedder: Embedder,
    query: string,
    viewer: RecallViewer,
    pool: number,
    workspace: string,
  ): Promise<Map<string, (score: number) => RecallResult>> {
    const passages = this.filesOf(workspace).passages();
    const turns = this.index.visibleTurns(viewer);
    const [wanted] = await this.cache.vectorsOf(embedder, [query]);
    const fileVectors = await this.cache.vectorsOf(
      embedder,
      passages.map((p) => p.text),
    );
    await this.embedTurns(embedder, turns);
    const nearest = [
      ...passages.map((file, i) => ({ file, similarity: cosine(wanted!, fileVectors[i]!) })),
      ...turns.map(({ id, row }) => ({ row, similarity: cosine(wanted!, this.turnVectors.get(id)!) })),
    ]
      .sort((a, b) => b.similarity - a.similarity)
      .slice(0, pool);
    return new Map(
      nearest.map((m): [string, (score: number) => RecallResult] => {
        if ('file' in m) return [fileKey(m.file), (score) => fileResult({ ...m.file, score }, m.file.text)];
        const words = this.words(m.row.asked, m.row.answered);
        return [`turn:${words.turn}`, (score) => this.rowResult(m.row, words, score)];
      }),
    );
  }

  /** A memory file's text, or undefined when `path` names none. */
  file(path: string, workspace = this.workspace): string | undefined {
    return readMemoryFile(workspace, path.replace(/^\.\//, ''));
  }

  /** A past turn `viewer` may see, or undefined. */
  turn(turnId: string, viewer: RecallViewer): RecalledTurn | undefined {
    for (const started of this.log.read({ turn: turnId, type: 'turn.started', order: 'desc' })) {
      const row = this.index.turn(started.seq, viewer);
      if (!row) continue;
      const { at, user, assistant } = this.words(row.asked, row.answered);
      return { turn_id: turnId, session: row.session, at: new Date(at).toISOString(), user, assistant };
    }
    return undefined;
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
    this.cache.close();
  }

  private filesOf(workspace: string): MemoryFilesIndex {
    let index = this.files.get(workspace);
    if (!index) this.files.set(workspace, (index = new MemoryFilesIndex(workspace)));
    return index;
  }

  /** Vectors for the turns that have none yet (a turn's words never change; a new model starts over). */
  private async embedTurns(embedder: Embedder, turns: Array<{ id: number; row: TurnRow }>): Promise<void> {
    if (embedder.model !== this.vectorModel) {
      this.turnVectors = new Map();
      this.vectorModel = embedder.model;
    }
    const missing = turns.filter(({ id }) => !this.turnVectors.has(id));
    if (missing.length === 0) return;
    const vectors = await this.cache.vectorsOf(
      embedder,
      missing.map(({ row }) => this.textOf(row)),
    );
    missing.forEach(({ id }, i) => this.turnVectors.set(id, vectors[i]!));
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
    if (!change) return;
    this.index.apply(change);
    if (change.kind === 'forget') {
      this.cache.clear();
      this.turnVectors = new Map();
    }
  }

  /** A turn's id, time and words, read from the log (`answered` 0: the user's words alone). */
  private words(asked: number, answered: number): TurnWords {
    const question = this.log.get(asked);
    const reply = answered ? this.log.get(answered) : undefined;
    return {
      turn: question?.turn ?? '',
      at: question?.at ?? 0,
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
      const count = words.user.split(/[\p{Z}\p{P}\s]+/u).filter((t) => {
        const term = processTerm(t);
        return term !== null && wanted.has(term);
      }).length;
      if (count > bestCount) [best, bestWords, bestCount] = [row, words, count];
    }
    return this.rowResult(best, bestWords, hit.score);
  }

  private rowResult(row: TurnRow, words: TurnWords, score: number): RecallResult {
    const at = new Date(words.at).toISOString();
    const { user, assistant } = words;
    return {
      source: 'sessions',
      score,
      session: row.session,
      turn_id: words.turn,
      at,
      snippet: clip(assistant ? `user: ${user}\nassistant: ${assistant}` : `user: ${user}`),
      citation: `turn ${words.turn} (${at})`,
    };
  }
}

const fileKey = (p: Omit<FileChunk, 'text'>): string => `file:${p.path}#L${p.startLine}-L${p.endLine}`;
const resultKey = (r: RecallResult): string => (r.source === 'memory' ? fileKey(r) : `turn:${r.turn_id}`);

function fileResult(hit: Omit<FileHit, 'text'>, text: string): RecallResult {
  const { path, startLine, endLine, score } = hit;
  return {
    source: 'memory',
    path,
    startLine,
    endLine,
    score,
    snippet: clip(text),
    citation: `${path}#L${startLine}-L${endLine}`,
  };
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
