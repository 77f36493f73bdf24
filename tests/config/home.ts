import { mkdtempSync, readFileSync, writeFileSync, chmodSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';

/** A fresh AGENT_HOME in a temp dir, with helpers to write its config and credentials files. */
export function tempHome(extraEnv: Record<string, string> = {}) {
  const home = mkdtempSync(join(tmpdir(), 'tern-'));
  const env: NodeJS.ProcessEnv = { AGENT_HOME: home, ...extraEnv };
  return {
    home,
    env,
    path: (name: string) => join(home, name),
    writeConfig(config: unknown, name = 'config.json') {
      writeFileSync(join(home, name), JSON.stringify(config, null, 2));
    },
    writeCredentials(credentials: unknown, mode = 0o600) {
      writeFileSync(join(home, '.security.yml'), stringify(credentials));
      chmodSync(join(home, '.security.yml'), mode);
    },
    read: (name: string) => readFileSync(join(home, name), 'utf8'),
    remove: () => rmSync(home, { recursive: true, force: true }),
  };
}
