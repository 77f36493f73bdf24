import MiniSearch from 'minisearch';
import type { ConversationTurn, RecallChange } from './conversation-fold.js';
import { NumberColumn } from './number-column.js';
import { processTerm } from './terms.js';

/** Who is searching: recall shows them the turns of their own chat, or every chat of the agent when shared. */
export interface RecallViewer {
  agent: string;
  channel: string;
  chat: string;
  session?: string;
  scope: 'private' | 'shared';
}

/** A turn as recall cites it; its id and time are in its `turn.started` event, at `asked`. */
export interface TurnRow {
  agent: string;
  session: string;
  sender: string;
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

/**
 * Consecutive turns of one sender in one session are indexed together, as transcript passages. Fewer, longer passages
 * share the postings of the words a person repeats: 8-turn passages left no margin under issue #38's memory bound.
 */
export const CHUNK_TURNS = 32;

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

/** Per passage: who said it, where (one sender in one session, so one agent; the chat of its first turn). */
const PASSAGE_COLUMNS = ['agent', 'session', 'chat', 'sender'] as const;
/** Per turn: the log events that hold its id, time and words, and its passage. */
const TURN_COLUMNS = { asked: 'float', answered: 'float', chunk: 'int' } as const;
type Saved<K extends string> = Record<K, number[]>;
type PassageColumns = Record<(typeof PASSAGE_COLUMNS)[number], NumberColumn>;
type TurnColumns = Record<keyof typeof TURN_COLUMNS, NumberColumn>;

function passageColumns(saved?: Saved<(typeof PASSAGE_COLUMNS)[number]>): PassageColumns {
  const entries = PASSAGE_COLUMNS.map((name) => [name, NumberColumn.of('int', saved?.[name] ?? [])]);
  return Object.fromEntries(entries) as PassageColumns;
}

function turnColumns(saved?: Saved<keyof typeof TURN_COLUMNS>): TurnColumns {
  const entries = Object.entries(TURN_COLUMNS).map(([name, kind]) => [
    name,
    NumberColumn.of(kind, saved?.[name as keyof typeof TURN_COLUMNS] ?? []),
  ]);
  return Object.fromEntries(entries) as TurnColumns;
}

const saved = <C extends Record<string, NumberColumn>>(columns: C): Saved<keyof C & string> =>
  Object.fromEntries(Object.entries(columns).map(([name, column]) => [name, column.toJSON()])) as Saved<
    keyof C & string
  >;

export const SNAPSHOT_VERSION = 3;

export interface RecallSnapshot {
  version: number;
  position: number;
  strings: string[];
  passages: Saved<(typeof PASSAGE_COLUMNS)[number]>;
  turns: Saved<keyof typeof TURN_COLUMNS>;
  chunks: number[][];
  open: Array<[string, number]>;
  forgotten: number[];
  search: unknown;
}

const indexOptions = { fields: ['text'], processTerm };

/**
 * The full-text (BM25) index over past conversations. MiniSearch holds one document per passage (up to `CHUNK_TURNS`
 * turns of one sender in one session, as OpenClaw indexes transcripts in chunks): a document per turn costs about
 * twice the memory for 100,000 turns and slows every search. A hit names its passage; the caller picks the turn in
 * it that matched. Nothing else of a turn is kept but where the log holds it.
 */
export class RecallIndex {
  /** The last log `seq` folded in. */
  position = 0;
  private readonly strings = new Interned();
  private passages: PassageColumns = passageColumns();
  private turns: TurnColumns = turnColumns();
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
    const chunk = this.turns.chunk.get(id);
    const value = (column: NumberColumn) => this.strings.values[column.get(chunk)]!;
    return {
      agent: value(this.passages.agent),
      session: value(this.passages.session),
      sender: value(this.passages.sender),
      asked: this.turns.asked.get(id),
      answered: this.turns.answered.get(id),
    };
  }

  private add(turn: ConversationTurn): void {
    const id = this.turns.asked.length;
    const key = `${turn.session}\u0000${turn.sender}`;
    let chunk = this.open.get(key);
    const grows = chunk !== undefined && this.chunks[chunk]!.length < CHUNK_TURNS;
    if (!grows) {
      chunk = this.chunks.length;
      this.chunks.push([]);
      this.open.set(key, chunk);
      this.passages.agent.push(this.strings.id(turn.agent));
      this.passages.session.push(this.strings.id(turn.session));
      this.passages.chat.push(this.strings.id(`${turn.channel}\u0000${turn.chat}`));
      this.passages.sender.push(this.strings.id(turn.sender));
    }
    this.turns.asked.push(turn.asked);
    this.turns.answered.push(turn.answered);
    this.turns.chunk.push(chunk!);
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
    this.chunks.forEach((_, chunk) => {
      if (this.forgotten.has(chunk) || this.passages.sender.get(chunk) !== target) return;
      this.forgotten.add(chunk);
      if (this.pendingText?.delete(chunk)) return;
      if (this.search.has(chunk)) this.search.discard(chunk);
    });
    for (const [key, chunk] of this.open) if (this.forgotten.has(chunk)) this.open.delete(key);
  }

  private visibleTo(viewer: RecallViewer): (chunk: number) => boolean {
    const p = this.passages;
    const agent = this.strings.has(viewer.agent);
    const chat = this.strings.has(`${viewer.channel}\u0000${viewer.chat}`);
    const session = viewer.session === undefined ? undefined : this.strings.has(viewer.session);
    return (chunk) => {
      if (agent === undefined || p.agent.get(chunk) !== agent || this.forgotten.has(chunk)) return false;
      if (viewer.scope === 'shared' || p.chat.get(chunk) === chat) return true;
      return session !== undefined && p.session.get(chunk) === session;
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

  /** A turn by the `seq` of its `turn.started`, when it is indexed and `viewer` may see it. */
  turn(asked: number, viewer: RecallViewer): TurnRow | undefined {
    const id = this.turns.asked.lastIndexOf(asked);
    if (id < 0 || !this.visibleTo(viewer)(this.turns.chunk.get(id))) return undefined;
    return this.row(id);
  }

  snapshot(): RecallSnapshot {
    return {
      version: SNAPSHOT_VERSION,
      position: this.position,
      strings: this.strings.values,
      passages: saved(this.passages),
      turns: saved(this.turns),
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
    index.passages = passageColumns(snapshot.passages);
    index.turns = turnColumns(snapshot.turns);
    index.chunks.push(...snapshot.chunks);
    for (const [key, chunk] of snapshot.open) index.open.set(key, chunk);
    for (const chunk of snapshot.forgotten) index.forgotten.add(chunk);
    index.search = MiniSearch.loadJS(snapshot.search as never, indexOptions);
    return index;
  }
}
