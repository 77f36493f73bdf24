import { join } from 'node:path';
import type { SkillInstaller } from '../../skills/installer.js';
import type { SkillRegistry } from '../../skills/registry.js';
import type { SkillSearch } from '../../skills/search.js';
import type { SkillsConfig } from '../../skills/settings.js';
import type { ToolRegistry } from '../registry.js';
import { findSkillsTool } from './find-skills.js';
import { installSkillTool } from './install-skill.js';

/** Adds `find_skills` and `install_skill` for an agent whose skills install into `workspace`. */
export type RegisterSkillTools = (registry: ToolRegistry, skills: SkillsConfig, workspace: string) => void;

/**
 * The skill tools of one runtime (`home` holds the global skills). One set of registry clients, and so one search
 * cache, serves every agent and outlives tools reloads while `tools.skills` stays the same, as the spec has one
 * cache per runtime; each agent's installer writes into its own workspace. The clients (undici, the zip reader)
 * load with the first call, so a runtime that never searches never loads them.
 */
export function runtimeSkillTools(home: string): RegisterSkillTools {
  type Clients = { registries: SkillRegistry[]; search: SkillSearch };
  let shared: { key: string; services: Promise<Clients>; installers: Map<string, Promise<SkillInstaller>> } | undefined;
  const of = (skills: SkillsConfig) => {
    const key = JSON.stringify(skills);
    if (shared?.key !== key) {
      const services = Promise.all([
        import('../../skills/index.js'),
        import('../../skills/search.js'),
        import('../../skills/settings.js'),
      ]).then(([index, { SkillSearch }, { skillsSettings }]) => {
        const settings = skillsSettings(skills);
        const registries = index.buildRegistries(settings);
        const options = { maxConcurrent: settings.maxConcurrentSearches, cache: settings.cache };
        return { registries, search: new SkillSearch(registries, options) };
      });
      shared = { key, services, installers: new Map() };
    }
    return shared;
  };
  return (registry, skills, workspace) => {
    if (!skills.enabled) return;
    const search = async (): Promise<SkillSearch> => (await of(skills).services).search;
    const installer = (): Promise<SkillInstaller> => {
      const { services, installers } = of(skills);
      let made = installers.get(workspace);
      if (!made) {
        made = Promise.all([services, import('../../skills/installer.js')]).then(
          ([s, m]) =>
            new m.SkillInstaller(s.registries, { workspace: join(workspace, 'skills'), global: join(home, 'skills') }),
        );
        installers.set(workspace, made);
      }
      return made;
    };
    registry.register(findSkillsTool(search));
    registry.register(installSkillTool(installer, skills.install_allowed_remotes));
  };
}
