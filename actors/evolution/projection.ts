import type { Envelope } from '../../bus/index.js';
import type { EventStore } from '../../store/log/event-store.js';

export const EVOLUTION_TYPES = [
  'learning.recorded',
  'skill.drafted',
  'skill.draft_failed',
  'skill.accepted',
  'skill.rejected',
  'skill.applied',
  'skill.apply_failed',
] as const;
type EvolutionType = (typeof EVOLUTION_TYPES)[number];

export interface RecordSummary {
  seq: number;
  task: string;
  tools: string[];
  outcome: 'success' | 'failure';
  reason?: string;
}

export type DraftStatus = 'pending' | 'accepted' | 'rejected' | 'applied';

export interface Draft {
  id: string;
  shape: string;
  name: string;
  description: string;
  content: string;
  records: number[];
  success_ratio: number;
  model_name: string;
  drafted_at: number;
  status: DraftStatus;
  decided_by?: string;
  decided_at?: number;
  applied_path?: string;
  backup?: string;
  /** Why the last attempt to write it failed. */
  apply_error?: string;
}

export interface Cluster {
  shape: string;
  records: RecordSummary[];
  successRatio: number;
}

/**
 * Evolution as the log tells it: learning records grouped by task shape (only those since the last draft attempt
 * of that shape) and every draft with its status. Built by folding the log and kept current from the bus.
 */
export class EvolutionView {
  readonly clusters = new Map<string, RecordSummary[]>();
  readonly drafts = new Map<string, Draft>();
  /** The `seq` of the last event folded in. */
  through = 0;

  static fromLog(log: EventStore): EvolutionView {
    const view = new EvolutionView();
    // One indexed read per type (a pattern would scan the whole log), then in log order.
    const events = EVOLUTION_TYPES.flatMap((type) => log.read({ type })).sort((a, b) => a.seq - b.seq);
    for (const event of events) view.fold(event);
    return view;
  }

  fold(event: Envelope): void {
    if (event.seq <= this.through || !(EVOLUTION_TYPES as readonly string[]).includes(event.type)) return;
    this.through = event.seq;
    this.apply(event as Envelope<EvolutionType>);
  }

  private apply(event: Envelope<EvolutionType>): void {
    switch (event.type) {
      case 'learning.recorded': {
        const { task, tools, outcome, reason, shape } = event.data;
        const list = this.clusters.get(shape) ?? [];
        list.push({ seq: event.seq, task, tools, outcome, ...(reason ? { reason } : {}) });
        this.clusters.set(shape, list);
        return;
      }
      case 'skill.drafted': {
        const { draft, shape, name, description, content, records, success_ratio, model_name } = event.data;
        this.drafts.set(draft, {
          id: draft,
          shape,
          name,
          description,
          content,
          records,
          success_ratio,
          model_name,
          drafted_at: event.at,
          status: 'pending',
        });
        return this.consume(shape, records);
      }
      case 'skill.draft_failed':
        return this.consume(event.data.shape, event.data.records);
      case 'skill.accepted':
        return this.decide(event.data.draft, 'accepted', event.data.by, event.at);
      case 'skill.rejected':
        return this.decide(event.data.draft, 'rejected', event.data.by, event.at);
      case 'skill.applied': {
        const draft = this.drafts.get(event.data.draft);
        if (!draft) return;
        draft.status = 'applied';
        draft.applied_path = event.data.path;
        delete draft.apply_error;
        if (event.data.backup) draft.backup = event.data.backup;
        return;
      }
      case 'skill.apply_failed': {
        const draft = this.drafts.get(event.data.draft);
        if (draft) draft.apply_error = event.data.reason;
        return;
      }
    }
  }

  /** A draft attempt used these records: the shape waits for new ones before it is tried again. */
  private consume(shape: string, records: number[]): void {
    const used = new Set(records);
    const left = (this.clusters.get(shape) ?? []).filter((r) => !used.has(r.seq));
    if (left.length > 0) this.clusters.set(shape, left);
    else this.clusters.delete(shape);
  }

  private decide(id: string, status: 'accepted' | 'rejected', by: string, at: number): void {
    const draft = this.drafts.get(id);
    if (!draft) return;
    draft.status = status;
    draft.decided_by = by;
    draft.decided_at = at;
  }

  /** Newest first. */
  draftList(): Draft[] {
    return [...this.drafts.values()].sort((a, b) => b.drafted_at - a.drafted_at || b.id.localeCompare(a.id));
  }

  /**
   * Clusters that may yield a draft: at least `minTaskCount` records, a success ratio of at least `minSuccessRatio`,
   * some tool used (a plain conversation teaches no procedure), and no draft of that shape waiting for a decision.
   */
  eligible(minTaskCount: number, minSuccessRatio: number): Cluster[] {
    const waiting = new Set([...this.drafts.values()].filter((d) => d.status === 'pending').map((d) => d.shape));
    const out: Cluster[] = [];
    for (const [shape, records] of this.clusters) {
      if (waiting.has(shape) || shape.endsWith('|-') || records.length < minTaskCount) continue;
      const successRatio = records.filter((r) => r.outcome === 'success').length / records.length;
      if (successRatio >= minSuccessRatio) out.push({ shape, records: [...records], successRatio });
    }
    return out.sort((a, b) => a.shape.localeCompare(b.shape));
  }
}
