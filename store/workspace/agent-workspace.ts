import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../config/index.js';
import { expandHome } from '../paths.js';

/**
 * Where agent `id` works: its `agents.list[].workspace`; else the default agent keeps `agents.defaults.workspace`
 * (`defaultWorkspace`) and every other agent gets `<AGENT_HOME>/workspace-<id>`.
 */
export function agentWorkspace(
  config: Config,
  home: string,
  defaultWorkspace: string,
  id: string,
  isDefault: boolean,
): string {
  const named = config.agents.list.find((a) => a.id === id)?.workspace?.trim();
  if (named) return resolve(expandHome(named));
  return isDefault ? defaultWorkspace : join(home, `workspace-${id}`);
}

/** Every agent's workspace under `config`: the default agent's first (marked `default`, else the first listed). */
export function agentWorkspaces(config: Config, home: string, defaultWorkspace: string): string[] {
  const list = config.agents.list;
  const defaultId = list.find((a) => a.default)?.id ?? list[0]?.id ?? 'main';
  const of = (id: string) => agentWorkspace(config, home, defaultWorkspace, id, id === defaultId);
  return [of(defaultId), ...list.filter((a) => a.id !== defaultId).map((a) => of(a.id))];
}

/**
 * An agent's workspace folder exists before its tools resolve paths in it (its files are the user's to write). Made
 * owner-only: what a command leaves there (a setuid copy of a program, say) is then out of other users' reach.
 */
export function ensureAgentWorkspace(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}
