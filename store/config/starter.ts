import { mkdirSync, writeFileSync } from 'node:fs';
import { agentHome, configPath, credentialsPath } from '../paths.js';

/** A first config: the current version and the blocks a new user edits first. Everything else has defaults. */
const STARTER_CONFIG = `${JSON.stringify(
  {
    version: 2,
    agents: { defaults: { restrict_to_workspace: true, max_tool_iterations: 20 } },
    model_list: [],
    channel_list: {},
    heartbeat: { enabled: true, interval: 30 },
  },
  null,
  2,
)}\n`;

const STARTER_CREDENTIALS = `# Tern credentials: keys and tokens kept apart from config.json.
# Keep this file private (mode 600) and out of version control. Values here win over config.json.
#
# model_list:
#   my-model:              # a model_name from config.json
#     api_keys: [sk-...]   # several keys rotate
# web:
#   brave:
#     api_keys: [...]
# channel_list:
#   telegram:
#     token: "123456:ABC..."
# skills:
#   registries:
#     github:
#       auth_token: ghp_...
`;

/** Writes a file only when it is not there yet (owner-only); says whether it did. */
function create(path: string, text: string): boolean {
  try {
    writeFileSync(path, text, { flag: 'wx', mode: 0o600 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** `AGENT_HOME` with a starter `config.json` and `.security.yml`; never overwrites. Returns the files created. */
export function createStarterFiles(env: NodeJS.ProcessEnv = process.env): string[] {
  mkdirSync(agentHome(env), { recursive: true, mode: 0o700 });
  const files: [string, string][] = [
    [configPath(env), STARTER_CONFIG],
    [credentialsPath(env), STARTER_CREDENTIALS],
  ];
  return files.filter(([path, text]) => create(path, text)).map(([path]) => path);
}
