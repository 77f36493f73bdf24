import type { Envelope } from '../../bus/index.js';

/** One turn as recall knows it: where it was said, by whom, and the log events that hold its time and words. */
export interface ConversationTurn {
  turn: string;
  agent: string;
  session: string;
  channel: string;
  chat: string;
  sender: string;
  /** `seq` of the `turn.started` (the user's words) and of the event with the reply, 0 when there was none. */
  asked: number;
  answered: number;
  /**
   * The words indexed: the user's message, whole. The reply is not indexed by words (100,000 turns of it would double
   * the index): it is shown with each hit, read by `memory_get`, and embedded with the message for search by meaning.
   */
  text: string;
}

/** What the fold asks its index to do: add a turn, or forget everything a sender said. */
export type RecallChange = { kind: 'turn'; turn: ConversationTurn } | { kind: 'forget'; sender: string };

type Pending = Omit<ConversationTurn, 'answered' | 'text'> & { question: string };

/** What the fold holds between events (turns in flight), saved with the index so it can go on from there. */
export interface FoldState {
  senders: Array<[string, string]>;
  pending: Pending[];
}

/** The event types the fold reads; the rest of the log never changes recall. */
export const RECALL_EVENT_TYPES =
  'message.routed,turn.started,turn.completed,turn.stopped,turn.failed,turn.aborted,data.forgotten';

/**
 * Turns the log into recall changes. A turn is indexed once it ended (its reply is known); the sender comes from
 * the `message.routed` that started it, since `turn.started` does not carry it.
 */
export class ConversationFold {
  private readonly senders = new Map<string, string>();
  private readonly pending = new Map<string, Pending>();

  state(): FoldState {
    return { senders: [...this.senders], pending: [...this.pending.values()] };
  }

  static restore(state: FoldState): ConversationFold {
    const fold = new ConversationFold();
    for (const [id, sender] of state.senders) fold.senders.set(id, sender);
    for (const turn of state.pending) fold.pending.set(turn.turn, turn);
    return fold;
  }

  apply(event: Envelope): RecallChange | undefined {
    switch (event.type) {
      case 'message.routed':
        this.senders.set(event.data.message_id, event.data.sender);
        return undefined;
      case 'turn.started': {
        if (!event.turn || !event.session) return undefined;
        const sender = this.senders.get(event.data.message_id) ?? '';
        this.senders.delete(event.data.message_id);
        this.pending.set(event.turn, {
          turn: event.turn,
          agent: event.agent ?? '',
          session: event.session,
          channel: event.data.channel,
          chat: event.data.chat,
          sender,
          asked: event.seq,
          question: event.data.text,
        });
        return undefined;
      }
      case 'turn.completed':
      case 'turn.stopped':
      case 'turn.failed':
        return this.end(event.turn, event.seq);
      case 'turn.aborted':
        return this.end(event.turn, 0);
      case 'data.forgotten':
        for (const [id, turn] of this.pending) if (turn.sender === event.data.sender) this.pending.delete(id);
        return { kind: 'forget', sender: event.data.sender };
      default:
        return undefined;
    }
  }

  private end(turnId: string | undefined, seq: number): RecallChange | undefined {
    const pending = turnId ? this.pending.get(turnId) : undefined;
    if (!pending) return undefined;
    this.pending.delete(pending.turn);
    const { question, ...rest } = pending;
    return { kind: 'turn', turn: { ...rest, answered: seq, text: question } };
  }
}
