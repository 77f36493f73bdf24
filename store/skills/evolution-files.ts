import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import * as z from 'zod';
import { expandHome } from '../paths.js';

/** `evolution.state_dir`: empty is `<workspace>/state/evolution`; a relative path is under the workspace. */
export function evolutionStateDir(workspace: string, configured: string): string {
  const chosen = configured.trim();
  if (chosen === '') return join(workspace, 'state', 'evolution');
  const expanded = expandHome(chosen);
  return isAbsolute(expanded) ? expanded : resolve(workspace, expanded);
}

/**
 * Readable copies of the drafts waiting for a decision, `<state_dir>/drafts/<id>/SKILL.md`: only derived state,
 * rebuilt from the log (the drafts' own record) whenever it changes, so removing the folder loses nothing.
 */
export function syncDraftCopies(stateDir: string, pending: ReadonlyArray<{ id: string; content: string }>): void {
  const dir = join(stateDir, 'drafts');
  mkdirSync(dir, { recursive: true });
  const wanted = new Map(pending.map((d) => [d.id, d.content]));
  for (const entry of readdirSync(dir))
    if (!wanted.has(entry)) rmSync(join(dir, entry), { recursive: true, force: true });
  for (const [id, content] of wanted) {
    mkdirSync(join(dir, id), { recursive: true });
    writeFileSync(join(dir, id, 'SKILL.md'), content);
  }
}

export function draftCopyPath(stateDir: string, id: string): string {
  return join(stateDir, 'drafts', id, 'SKILL.md');
}

const decisionSchema = z.object({
  request: z.string(),
  draft: z.string(),
  decision: z.enum(['accept', 'reject']),
  by: z.string(),
});
export type QueuedDecision = z.infer<typeof decisionSchema>;

/** Decisions the CLI leaves for the process that holds the event log: `<workspace>/state/evolution-requests/`. */
export function decisionInbox(workspace: string): string {
  return join(workspace, 'state', 'evolution-requests');
}

/** Written whole (temp file, then rename), so the reader never sees half a request. */
export function queueDecision(workspace: string, decision: QueuedDecision): void {
  const dir = decisionInbox(workspace);
  mkdirSync(dir, { recursive: true });
  const temp = join(dir, `.${decision.request}.tmp`);
  writeFileSync(temp, JSON.stringify(decision), { mode: 0o600 });
  renameSync(temp, join(dir, `${decision.request}.json`));
}

/** The queued decisions, oldest name first, each removed as it is taken; unreadable files are dropped. */
export function takeDecisions(workspace: string): QueuedDecision[] {
  const dir = decisionInbox(workspace);
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort();
  } catch {
    return [];
  }
  const out: QueuedDecision[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      const parsed = decisionSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
      if (parsed.success) out.push(parsed.data);
    } catch {
      // A file that is not a decision is not kept either.
    }
    rmSync(path, { force: true });
  }
  return out;
}
