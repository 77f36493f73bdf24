import { cpSync, mkdtempSync, rmSync } from 'node:fs';
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
  return homeAt(mkdtempSync(join(tmpdir(), 'tern-')));
}

/**
 * A fresh AGENT_HOME holding a copy of everything in `from` (its config, its event log, its workspace), for a test
 * that starts from a home other tests start from too: turns run once, then each test changes only its own copy. Copy
 * only a home no process has open (its log is then whole on disk).
 */
export function copyOfHome(from: TempHome): TempHome {
  const copy = homeAt(mkdtempSync(join(tmpdir(), 'tern-')));
  cpSync(from.home, copy.home, { recursive: true });
  return copy;
}

function homeAt(home: string): TempHome {
  const workspace = join(home, 'workspace');
  return {
    home,
    workspace,
    sessions: join(workspace, 'sessions'),
    env: { ...process.env, AGENT_HOME: home, AGENT_CONFIG: '' },
    remove: () => rmSync(home, { recursive: true, force: true }),
  };
}
