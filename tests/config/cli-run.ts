import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ternEntry } from '../support/cli.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `tern` front door with only the given AGENT_* variables set. */
export function tern(args: string[], agentEnv: NodeJS.ProcessEnv): Promise<CliResult> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AGENT_')));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...ternEntry, ...args], {
      cwd: root,
      env: { ...env, ...agentEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
