import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempHome {
  home: string;
  workspace: string;
  sessions: string;
  env: NodeJS.ProcessEnv;
  remove(): void;
}

/** A fresh AGENT_HOME for one test; the default workspace sits inside it. */
export function tempHome(): TempHome {
  const home = mkdtempSync(join(tmpdir(), 'tern-'));
  const workspace = join(home, 'workspace');
  return {
    home,
    workspace,
    sessions: join(workspace, 'sessions'),
    env: { ...process.env, AGENT_HOME: home, AGENT_CONFIG: '' },
    remove: () => rmSync(home, { recursive: true, force: true }),
  };
}
