import type { InstallRequest, InstallResult, RemoveResult } from '../../skills/installer.js';
import type { SearchOutcome } from '../../skills/search.js';

/** A draft as the dashboard shows it: evolution's candidate skill and where it stands. */
export interface DraftRow {
  id: string;
  name: string;
  description: string;
  shape: string;
  status: 'pending' | 'accepted' | 'rejected' | 'applied';
  records: number;
  success_ratio: number;
  drafted_at: number;
  content: string;
  decided_by?: string;
  applied_path?: string;
  backup?: string;
  apply_error?: string;
}

export type DraftDecision =
  | { ok: true; status: 'accepted' | 'rejected' | 'applied'; path?: string; backup?: string }
  | { ok: false; code: string; message: string };

/** Skills for the dashboard: the installed ones, registry search and installs, and evolution's drafts. */
export interface SkillsHost {
  /** Every skill of every root with where it came from. */
  installed(): unknown[];
  search(query: string, limit: number): Promise<SearchOutcome>;
  install(request: InstallRequest): Promise<InstallResult>;
  remove(name: string, global: boolean): RemoveResult;
  drafts(): Promise<DraftRow[]>;
  /** Asks the running gateway's evolution actor; `gateway_stopped` when there is none. */
  decide(draft: string, decision: 'accept' | 'reject'): Promise<DraftDecision>;
}
