import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../config/index.js';
import { expandHome } from '../paths.js';

/**
 * Where agent `id` works: its `agents.list[].workspace`; else the default agent keeps `agents.defaults.workspace`
 * (`defaultWorkspace`) and every other agent gets `<AGENT_HOME>/workspace-<id>`.
 */
export function agentWorkspace(config: Config, home: string, defaultWorkspace: string, id: string, isDefault: boolean): string {
  const named = config.agents.list.find((a) => a.id === id)?.workspace?.trim();
  if (named) return resolve(expandHome(named));
  return isDefault ? defaultWorkspace : join(home, `workspace-${id}`);
}

/** An agent's workspace folder exists before its tools resolve paths in it (its files are the user's to write). */
export function ensureAgentWorkspace(dir: string): void {
  mkdirSync(dir, { recursive: true });
}
