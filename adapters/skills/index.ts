import { ClawHubRegistry } from './clawhub.js';
import { GitHubRegistry } from './github.js';
import { SkillInstaller, type InstallRoots } from './installer.js';
import type { SkillRegistry } from './registry.js';
import { SkillSearch } from './search.js';
import { skillsSettings, type SkillsConfig, type SkillsSettings } from './settings.js';

export interface SkillServices {
  settings: SkillsSettings;
  registries: SkillRegistry[];
  search: SkillSearch;
  installer: SkillInstaller;
}

export function buildRegistries(settings: SkillsSettings): SkillRegistry[] {
  return settings.registries.map((r) => (r.kind === 'github' ? new GitHubRegistry(r) : new ClawHubRegistry(r)));
}

/** Search and install over the enabled registries of `tools.skills`; one per process keeps one search cache. */
export function skillServices(
  skills: SkillsConfig,
  roots: InstallRoots,
  options: { now?: () => number } = {},
): SkillServices {
  const settings = skillsSettings(skills);
  const registries = buildRegistries(settings);
  const now = options.now ?? Date.now;
  return {
    settings,
    registries,
    search: new SkillSearch(registries, { maxConcurrent: settings.maxConcurrentSearches, cache: settings.cache, now }),
    installer: new SkillInstaller(registries, roots, { now: () => new Date(now()) }),
  };
}

export { SkillInstallError } from './registry.js';
export type { InstallRequest, InstallResult, InstallRoots, RemoveResult } from './installer.js';
export type { RankedSkill, SearchOutcome } from './search.js';
export { SkillSearchError } from './search.js';
