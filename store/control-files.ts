import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The Unix socket a running gateway listens on for the CLI (`adapters/control`), and the owner-only file beside it
 * with the token a client must show: only someone who can read files of this `AGENT_HOME` may send work.
 */
export function controlPaths(home: string): { socket: string; token: string } {
  return { socket: join(home, 'gateway.sock'), token: join(home, 'gateway.token') };
}

/** What the token file holds: the token, and which process serves the socket (a stale socket's owner is gone). */
export interface ControlToken {
  token: string;
  pid: number;
}

/** A new token, written (mode 0600, replacing any left behind) before the socket listens. */
export function writeControlToken(home: string): ControlToken {
  const { token: path } = controlPaths(home);
  const written = { token: randomBytes(32).toString('hex'), pid: process.pid };
  // A file left by a gateway that died may have another mode; the mode of a new file is the one asked for.
  rmSync(path, { force: true });
  writeFileSync(path, JSON.stringify(written), { mode: 0o600, flag: 'wx' });
  return written;
}

/** The token file, or undefined when there is none (or it is not one: a client then cannot connect). */
export function readControlToken(home: string): ControlToken | undefined {
  try {
    const value = JSON.parse(readFileSync(controlPaths(home).token, 'utf8')) as Partial<ControlToken>;
    if (typeof value.token !== 'string' || typeof value.pid !== 'number') return undefined;
    return { token: value.token, pid: value.pid };
  } catch {
    return undefined;
  }
}

/**
 * Removes the socket and token file: a gateway's own at its stop (`token` given: only while the file is still its),
 * or what a gateway that is gone left behind.
 */
export function removeControlFiles(home: string, token?: string): void {
  const paths = controlPaths(home);
  if (token !== undefined && readControlToken(home)?.token !== token) return;
  rmSync(paths.socket, { force: true });
  rmSync(paths.token, { force: true });
}

/** Whether the process that wrote the token file still runs (a socket it left is then not stale, only busy). */
export function controlOwnerAlive(home: string): boolean {
  const pid = readControlToken(home)?.pid;
  if (pid === undefined || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
