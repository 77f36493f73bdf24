import { join } from 'node:path';
import type { SkillServices } from '../../skills/index.js';
import type { SkillsConfig } from '../../skills/settings.js';
import type { ToolRegistry } from '../registry.js';
import { findSkillsTool } from './find-skills.js';
import { installSkillTool } from './install-skill.js';

/**
 * `find_skills` and `install_skill` when `tools.skills.enabled`; the registry clients (undici, the zip reader) load
 * with the first call, so a runtime that never searches never loads them. One search cache per runtime.
 */
export function registerSkillTools(
  registry: ToolRegistry,
  skills: SkillsConfig,
  paths: { workspace: string; home: string },
): void {
  if (!skills.enabled) return;
  let services: Promise<SkillServices> | undefined;
  const load = (): Promise<SkillServices> =>
    (services ??= import('../../skills/index.js').then((m) =>
      m.skillServices(skills, { workspace: join(paths.workspace, 'skills'), global: join(paths.home, 'skills') }),
    ));
  registry.register(findSkillsTool(async () => (await load()).search));
  registry.register(installSkillTool(async () => (await load()).installer, skills.install_allowed_remotes));
}
