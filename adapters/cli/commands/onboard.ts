import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ConfigError, loadConfig } from '../../../store/config/index.js';
import { createStarterFiles } from '../../../store/config/starter.js';
import { agentHome } from '../../../store/paths.js';
import { ensureWorkspace } from '../../../store/workspace.js';
import type { CommandContext } from '../command.js';
import { print } from '../command.js';
import { CliError } from '../errors.js';

function workspaceOf(env: NodeJS.ProcessEnv): string {
  try {
    return loadConfig({ env, rewrite: false }).workspace;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new CliError(
      error.code,
      `the config ${error.file} cannot be used`,
      error.problems.join('; '),
      'Fix it (see `tern config validate`) and run `tern onboard` again.',
    );
  }
}

export async function run({ env, json, stdout }: CommandContext): Promise<number> {
  const home = agentHome(env);
  const created = createStarterFiles(env);
  const workspace = workspaceOf(env);
  const hadWorkspace = existsSync(workspace);
  created.push(...ensureWorkspace(workspace).map((entry) => join(workspace, entry)));
  if (json) {
    print(stdout, JSON.stringify({ ok: true, home, workspace, created }));
    return 0;
  }
  if (created.length === 0) print(stdout, `Nothing to create: ${home} and the workspace ${workspace} are already set up.`);
  else {
    print(stdout, `Created${hadWorkspace ? '' : ` (workspace ${workspace})`}:`);
    for (const path of created) print(stdout, `  ${relative(home, path).startsWith('..') ? path : relative(home, path)}`);
  }
  print(stdout, 'Existing files are never overwritten. Next: add a model to model_list in config.json, its key to .security.yml, then run `tern status`.');
  return 0;
}
