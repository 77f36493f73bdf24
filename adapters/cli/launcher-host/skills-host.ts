import { join } from 'node:path';
import { filter, firstValueFrom, timeout, type Observable } from 'rxjs';
import { applies } from '../../../actors/evolution/decide.js';
import { EvolutionView } from '../../../actors/evolution/projection.js';
import type { Runtime } from '../../../actors/runtime.js';
import type { Envelope, EventDraft, EventType } from '../../../bus/index.js';
import { loadConfig, type LoadedConfig } from '../../../store/config/index.js';
import type { EventStore } from '../../../store/log/event-store.js';
import { skillRoots } from '../../../store/skills.js';
import { installedRow, installedSkills } from '../../../store/skills/installed.js';
import type { DraftDecision, DraftRow, SkillsHost } from '../../launcher/api/skills-host.js';
import { skillServices, type SkillServices } from '../../skills/index.js';

/** How long the dashboard waits for the evolution actor to answer a decision. */
const DECISION_MS = 10_000;
const ANSWERS: ReadonlySet<string> = new Set([
  'skill.accepted',
  'skill.rejected',
  'skill.decision.refused',
  'skill.applied',
  'skill.apply_failed',
]);

export interface SkillsHostDeps {
  env: NodeJS.ProcessEnv;
  /** The event log, the gateway's or the one it left. */
  log(): EventStore | undefined;
  /** The running gateway's engine (its evolution actor), loaded on demand; undefined while the gateway is stopped. */
  engine(): Promise<Runtime> | undefined;
  events$: Observable<Envelope>;
  publish<T extends EventType>(draft: EventDraft<T>): boolean;
  now?: () => number;
}

function answerOf(event: Envelope): DraftDecision {
  switch (event.type) {
    case 'skill.applied':
      return {
        ok: true,
        status: 'applied',
        path: event.data.path,
        ...(event.data.backup ? { backup: event.data.backup } : {}),
      };
    case 'skill.accepted':
      return { ok: true, status: 'accepted' };
    case 'skill.rejected':
      return { ok: true, status: 'rejected' };
    case 'skill.apply_failed':
      return {
        ok: false,
        code: 'apply_failed',
        message: `accepted, but not written into skills/: ${event.data.reason}`,
      };
    case 'skill.decision.refused':
      return { ok: false, code: 'draft_decided', message: event.data.reason };
    default:
      return { ok: false, code: 'internal', message: `unexpected answer ${event.type}` };
  }
}

/**
 * The dashboard's skills: the store for what is installed, the registries for search and installs, the log for drafts.
 */
export function skillsHost(deps: SkillsHostDeps): SkillsHost {
  const now = deps.now ?? Date.now;
  let cached: { key: string; services: SkillServices } | undefined;
  const loaded = (): LoadedConfig => loadConfig({ env: deps.env, rewrite: false });
  // One set of registry clients (and so one search cache) while `tools.skills` and the folders stay the same.
  const services = (config: LoadedConfig): SkillServices => {
    const key = JSON.stringify([config.config.tools.skills, config.workspace, config.home]);
    if (cached?.key !== key) {
      cached = {
        key,
        services: skillServices(
          config.config.tools.skills,
          { workspace: join(config.workspace, 'skills'), global: join(config.home, 'skills') },
          { now },
        ),
      };
    }
    return cached.services;
  };
  // A running gateway's last events may still be on their way into lmdb: read once they are committed.
  const view = async (): Promise<EvolutionView> => {
    const log = deps.log();
    if (!log) return new EvolutionView();
    if (!log.readOnly) await log.committed();
    return EvolutionView.fromLog(log);
  };
  return {
    installed: () => {
      const config = loaded();
      return installedSkills(skillRoots(config.workspace, config.home, deps.env)).map(installedRow);
    },
    search: (query, limit) => services(loaded()).search.search(query, limit),
    install: (request) => services(loaded()).installer.install(request),
    remove: (name, global) => services(loaded()).installer.remove(name, { global }),
    drafts: async () =>
      (await view()).draftList().map((d): DraftRow => {
        const { records, model_name: _model, drafted_at, decided_at: _at, id, ...rest } = d;
        return { id, ...rest, records: records.length, drafted_at };
      }),
    decide: async (draft, decision) => {
      const engine = deps.engine();
      if (!engine)
        return { ok: false, code: 'gateway_stopped', message: 'the gateway is stopped; start it to decide drafts' };
      if (!(await view()).drafts.has(draft))
        return { ok: false, code: 'draft_unknown', message: `there is no draft ${draft}` };
      await engine;
      const request = `r_${now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
      const final: ReadonlySet<string> =
        decision === 'accept' && applies(loaded().config)
          ? new Set(['skill.applied', 'skill.apply_failed', 'skill.decision.refused'])
          : ANSWERS;
      const answered = firstValueFrom(
        deps.events$.pipe(
          filter((e) => final.has(e.type) && (e.data as { request?: string }).request === request),
          timeout(DECISION_MS),
        ),
      );
      deps.publish({ type: 'skill.decision.requested', data: { request, draft, decision, by: 'dashboard' } });
      try {
        return answerOf(await answered);
      } catch {
        return { ok: false, code: 'no_answer', message: `the gateway did not answer within ${DECISION_MS / 1000} s` };
      }
    },
  };
}
