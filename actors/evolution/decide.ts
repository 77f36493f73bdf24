import { join } from 'node:path';
import type { Bus, Envelope } from '../../bus/index.js';
import type { Config } from '../../store/config/index.js';
import { SkillStaging } from '../../store/skills/staging.js';
import type { Draft, EvolutionView } from './projection.js';

export interface DecisionRequest {
  request: string;
  draft: string;
  decision: 'accept' | 'reject';
  by: string;
}

export interface DecisionDeps {
  bus: Bus;
  view: EvolutionView;
  config: () => Config;
  workspace: string;
  now: () => Date;
}

/** Whether accepted drafts are written into the workspace: `evolution.enabled` with `mode: apply`. */
export function applies(config: Config): boolean {
  return config.evolution.enabled && config.evolution.mode === 'apply';
}

/**
 * Writes an accepted draft into the workspace `skills/<name>/` as one rename; a skill already there is kept in
 * `skills/.backups/<name>-<time>` (a dot-folder, which the catalog skips). Publishes `skill.applied` or
 * `skill.apply_failed`.
 */
export function applyDraft(
  deps: Omit<DecisionDeps, 'view' | 'config'>,
  draft: Draft,
  request?: string,
): Envelope<'skill.applied' | 'skill.apply_failed'> {
  const root = join(deps.workspace, 'skills');
  const staging = SkillStaging.open(root);
  const tag = request ? { request } : {};
  try {
    staging.writeSkillText(draft.content);
    const committed = staging.commit(draft.name, { backupDir: join(root, '.backups'), now: deps.now() });
    return deps.bus.publish({
      type: 'skill.applied',
      data: {
        draft: draft.id,
        name: draft.name,
        path: committed.path,
        ...(committed.backup ? { backup: committed.backup } : {}),
        ...tag,
      },
    });
  } catch (error) {
    return deps.bus.publish({
      type: 'skill.apply_failed',
      data: { draft: draft.id, reason: (error as Error).message, ...tag },
    });
  } finally {
    staging.discard();
  }
}

/**
 * A person's decision on a draft: `skill.rejected`, or `skill.accepted` followed (in apply mode) by the draft
 * written into the workspace. A draft that does not exist or was decided already gets `skill.decision.refused`.
 * Returns the last event published, which answers the request.
 */
export function decide(deps: DecisionDeps, request: DecisionRequest): Envelope {
  const draft = deps.view.drafts.get(request.draft);
  const refuse = (reason: string) =>
    deps.bus.publish({
      type: 'skill.decision.refused',
      data: { request: request.request, draft: request.draft, reason },
    });
  if (!draft) return refuse(`there is no draft ${request.draft} (see \`tern skills drafts\`)`);
  if (draft.status !== 'pending') return refuse(`draft ${draft.id} (${draft.name}) was ${draft.status} already`);
  const data = { draft: draft.id, by: request.by, request: request.request };
  if (request.decision === 'reject') return deps.bus.publish({ type: 'skill.rejected', data });
  const accepted = deps.bus.publish({ type: 'skill.accepted', data });
  return applies(deps.config()) ? applyDraft(deps, draft, request.request) : accepted;
}
