import MiniSearch from 'minisearch';
import type { ConversationTurn, RecallChange } from './conversation-fold.js';
import { processTerm } from './terms.js';

/** Who is searching: recall shows them the turns of their own chat, or every chat of the agent when shared. */
export interface RecallViewer {
  agent: string;
  channel: string;
  chat: string;
  session?: string;
  scope: 'private' | 'shared';
}

/** A turn as recall cites it. */
export interface TurnRow {
  turn: string;
  agent: string;
  session: string;
  sender: string;
  at: number;
  asked: number;
  answered: number;
}

/** A passage of a conversation that matched: its turns, oldest first, and the index terms that matched. */
export interface ChunkHit {
  score: number;
  terms: string[];
  turns: TurnRow[];
}

/** Reads a turn's words back from the log (the index keeps none of them). */
export type TurnWords = (row: TurnRow) => string;

/** Consecutive turns of one sender in one session are indexed together, as transcript passages. */
export const CHUNK_TURNS = 8;

/** Strings repeated across many turns (sessions, chats, senders) are kept once and referred to by number. */
class Interned {
  private readonly index = new Map<string, number>();
  readonly values: string[] = [];

  id(value: string): number {
    let id = this.index.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.index.set(value, id);
    }
    return id;
  }

  has(value: string): number | undefined {
    return this.index.get(value);
  }
}

/** What a search needs per turn, in columns rather than objects: 100,000 turns stay a few megabytes. */
interface Columns {
  turn: string[];
  agent: number[];
  session: number[];
  chat: number[];
  sender: number[];
  at: number[];
  asked: number[];
  answered: number[];
  chunk: number[];
}

export const SNAPSHOT_VERSION = 2;

export interface RecallSnapshot {
  version: number;
  position: number;
  strings: string[];
  columns: Columns;
  chunks: number[][];
  open: Array<[string, number]>;
  forgotten: number[];
  search: unknown;
}

const indexOptions = { fields: ['text'], processTerm };

/**
 * The full-text (BM25) index over past conversations. MiniSearch holds one document per passage (up to `CHUNK_TURNS`
 * turns of one sender in one session, as OpenClaw indexes transcripts in chunks): a document per turn costs about
 * twice the memory for 100,000 turns. A hit names its passage; the caller picks the turn in it that matched.
 */
export class RecallIndex {
  /** The last log `seq` folded in. */
  position = 0;
  private readonly strings = new Interned();
  private readonly columns: Columns = {
    turn: [],
    agent: [],
    session: [],
    chat: [],
    sender: [],
    at: [],
    asked: [],
    answered: [],
    chunk: [],
  };
  private readonly chunks: number[][] = [];
  /** The passage still growing for each session and sender. */
  private readonly open = new Map<string, number>();
  /** Passages dropped by `data.forgotten`. */
  private readonly forgotten = new Set<number>();
  /** While the log is read in bulk, growing passages wait here and are indexed once, not again with each turn. */
  private pendingText: Map<number, string> | undefined;
  private search: MiniSearch<{ id: number; text: string }> = new MiniSearch(indexOptions);

  constructor(private readonly words: TurnWords) {}

  get size(): number {
    let turns = 0;
    this.chunks.forEach((rows, id) => (turns += this.forgotten.has(id) ? 0 : rows.length));
    return turns;
  }

  /** Folding many events: index each passage once, when `endBulk` is called. */
  beginBulk(): void {
    this.pendingText ??= new Map();
  }

  endBulk(): void {
    const pending = this.pendingText;
    this.pendingText = undefined;
    for (const [chunk, text] of pending ?? []) this.search.add({ id: chunk, text });
  }

  apply(change: RecallChange): void {
    if (change.kind === 'forget') this.forget(change.sender);
    else this.add(change.turn);
  }

  private row(id: number): TurnRow {
    const c = this.columns;
    const value = (column: number[]) => this.strings.values[column[id]!]!;
    return {
      turn: c.turn[id]!,
      agent: value(c.agent),
      session: value(c.session),
      sender: value(c.sender),
      at: c.at[id]!,
      asked: c.asked[id]!,
      answered: c.answered[id]!,
    };
  }

  private add(turn: ConversationTurn): void {
    const c = this.columns;
    const id = c.turn.length;
    const key = `${turn.session}\u0000${turn.sender}`;
    let chunk = this.open.get(key);
    const grows = chunk !== undefined && this.chunks[chunk]!.length < CHUNK_TURNS;
    if (!grows) {
      chunk = this.chunks.length;
      this.chunks.push([]);
      this.open.set(key, chunk);
    }
    c.turn.push(turn.turn);
    c.agent.push(this.strings.id(turn.agent));
    c.session.push(this.strings.id(turn.session));
    c.chat.push(this.strings.id(`${turn.channel}\u0000${turn.chat}`));
    c.sender.push(this.strings.id(turn.sender));
    c.at.push(turn.at);
    c.asked.push(turn.asked);
    c.answered.push(turn.answered);
    c.chunk.push(chunk!);
    this.chunks[chunk!]!.push(id);
    if (this.pendingText) {
      const before = this.pendingText.get(chunk!);
      const text = before ? `${before}\n${turn.text}` : turn.text;
      // A full passage grows no more: index it now, so a bulk fold never holds the whole log's words at once.
      if (this.chunks[chunk!]!.length < CHUNK_TURNS) this.pendingText.set(chunk!, text);
      else {
        this.pendingText.delete(chunk!);
        this.search.add({ id: chunk!, text });
      }
      return;
    }
    if (grows) this.search.discard(chunk!);
    const earlier = this.chunks[chunk!]!.slice(0, -1).map((row) => this.words(this.row(row)));
    this.search.add({ id: chunk!, text: [...earlier, turn.text].join('\n') });
  }

  private forget(sender: string): void {
    const target = this.strings.has(sender);
    if (target === undefined) return;
    this.chunks.forEach((rows, chunk) => {
      if (this.forgotten.has(chunk) || this.columns.sender[rows[0]!] !== target) return;
      this.forgotten.add(chunk);
      if (this.pendingText?.delete(chunk)) return;
      if (this.search.has(chunk)) this.search.discard(chunk);
    });
    for (const [key, chunk] of this.open) if (this.forgotten.has(chunk)) this.open.delete(key);
  }

  private visibleTo(viewer: RecallViewer): (chunk: number) => boolean {
    const c = this.columns;
    const agent = this.strings.has(viewer.agent);
    const chat = this.strings.has(`${viewer.channel}\u0000${viewer.chat}`);
    const session = viewer.session === undefined ? undefined : this.strings.has(viewer.session);
    return (chunk) => {
      const first = this.chunks[chunk]![0]!;
      if (agent === undefined || c.agent[first] !== agent || this.forgotten.has(chunk)) return false;
      return (
        viewer.scope === 'shared' || c.chat[first] === chat || (session !== undefined && c.session[first] === session)
      );
    };
  }

  /** The best passages for `query` that `viewer` may see, best first. */
  find(query: string, viewer: RecallViewer, limit: number): ChunkHit[] {
    const visible = this.visibleTo(viewer);
    // A boost of 0 skips a passage while it is scored; a filter would see it only after its result was built.
    const found = this.search.search(query, { boostDocument: (id) => (visible(id as number) ? 1 : 0) });
    return found.slice(0, limit).map((r) => ({
      score: r.score,
      terms: r.terms,
      turns: this.chunks[r.id as number]!.map((row) => this.row(row)),
    }));
  }

  /** Every turn `viewer` may see, by its number in the index (stable while the index lives), oldest first. */
  visibleTurns(viewer: RecallViewer): Array<{ id: number; row: TurnRow }> {
    const visible = this.visibleTo(viewer);
    const out: Array<{ id: number; row: TurnRow }> = [];
    this.chunks.forEach((rows, chunk) => {
      if (visible(chunk)) for (const id of rows) out.push({ id, row: this.row(id) });
    });
    return out.sort((a, b) => a.id - b.id);
  }

  /** A turn by its id, when `viewer` may see it. */
  turn(turnId: string, viewer: RecallViewer): TurnRow | undefined {
    const id = this.columns.turn.lastIndexOf(turnId);
    if (id < 0 || !this.visibleTo(viewer)(this.columns.chunk[id]!)) return undefined;
    return this.row(id);
  }

  snapshot(): RecallSnapshot {
    return {
      version: SNAPSHOT_VERSION,
      position: this.position,
      strings: this.strings.values,
      columns: this.columns,
      chunks: this.chunks,
      open: [...this.open],
      forgotten: [...this.forgotten],
      search: this.search.toJSON(),
    };
  }

  static restore(snapshot: RecallSnapshot, words: TurnWords): RecallIndex {
    const index = new RecallIndex(words);
    index.position = snapshot.position;
    for (const value of snapshot.strings) index.strings.id(value);
    Object.assign(index.columns, snapshot.columns);
    index.chunks.push(...snapshot.chunks);
    for (const [key, chunk] of snapshot.open) index.open.set(key, chunk);
    for (const chunk of snapshot.forgotten) index.forgotten.add(chunk);
    index.search = MiniSearch.loadJS(snapshot.search as never, indexOptions);
    return index;
  }
}
