import { lstatSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { SandboxPolicy } from '../options.js';
import { isProtected, protectedRoots, type Access, type ProtectedRoots } from './protected.js';
import { refusal } from './refusals.js';
import { isWithin, resolvePhysical, resolveReal, SymlinkLoopError } from './resolve-real.js';
import { isWindowsSpecialPath } from './windows-path.js';

export type { Access } from './protected.js';

/**
 * A regular file with more than one hard link: its other names may be a protected file or lie outside the
 * allowed roots, and nothing about this name tells which, so the file tools never open one.
 */
function isHardLinked(real: string): boolean {
  const stats = lstatSync(real, { throwIfNoEntry: false });
  return stats?.isFile() === true && stats.nlink > 1;
}

function bothForms(path: string): string[] {
  const real = resolveReal(path);
  return real === path ? [path] : [path, real];
}

/**
 * Where file tools may go. Built once per agent from trusted configuration; the model's arguments
 * only ever name a path inside it, so subagents, cron and heartbeat turns built from the same policy
 * inherit it unchanged.
 */
export class Sandbox {
  readonly workspace: string;
  readonly roots: ProtectedRoots;
  /** Real paths of `allow_read_paths` and `allow_write_paths` (writable ones are readable too). */
  readonly readRoots: string[];
  readonly writeRoots: string[];

  constructor(readonly policy: SandboxPolicy) {
    this.workspace = resolveReal(resolve(policy.workspace));
    this.roots = protectedRoots(
      bothForms(resolve(policy.home)),
      bothForms(resolve(policy.codingToolHome)),
      bothForms(resolve(policy.workspace)),
    );
    this.writeRoots = policy.allowWritePaths.map((p) => resolveReal(this.expand(p)));
    this.readRoots = [...policy.allowReadPaths.map((p) => resolveReal(this.expand(p))), ...this.writeRoots];
  }

  /**
   * The real path behind `input` if `access` to it is allowed, else a `ToolError` whose message the
   * model reads. Relative paths are relative to the workspace.
   */
  resolve(input: string, access: Access): string {
    const lexical = this.lexical(input);
    const real = this.real(lexical, input);
    if (isProtected(lexical, access, this.roots) || isProtected(real, access, this.roots)) {
      throw refusal('protected_path', input);
    }
    if (this.policy.restrictToWorkspace && !this.isInside(real, access)) throw refusal('outside_workspace', input);
    if (isHardLinked(real)) throw refusal('hard_link', input);
    return real;
  }

  /** Entries a listing or search must not show: anything a read would refuse as protected. */
  isHidden(path: string): boolean {
    return isProtected(path, 'read', this.roots);
  }

  /**
   * For exec: whether a path named on a command line stays inside what the agent may touch, resolved as the
   * kernel will resolve it (links followed where they stand, `..` from where a link led).
   */
  contains(input: string, cwd: string): boolean {
    if (input.includes('\0') || isWindowsSpecialPath(input)) return false;
    try {
      return this.isInside(resolvePhysical(cwd, this.expand(input)), 'read');
    } catch {
      return false;
    }
  }

  /** For exec: a plain word names a location only when an entry of that name is there (`cat link-out`). */
  containsIfPresent(name: string, cwd: string): boolean {
    try {
      if (!lstatSync(resolvePhysical(cwd, name), { throwIfNoEntry: false })) return true;
    } catch {
      return true;
    }
    return this.contains(name, cwd);
  }

  private isInside(real: string, access: Access): boolean {
    const extra = access === 'read' ? this.readRoots : this.writeRoots;
    return isWithin(real, this.workspace) || extra.some((root) => isWithin(real, root));
  }

  private lexical(input: string): string {
    if (input.trim() === '' || input.includes('\0')) throw refusal('invalid_path', input);
    if (isWindowsSpecialPath(input)) throw refusal('device_path', input);
    return resolve(this.workspace, this.expand(input));
  }

  private real(lexical: string, input: string): string {
    try {
      return resolveReal(lexical);
    } catch (error) {
      if (error instanceof SymlinkLoopError) throw refusal('symlink_loop', input);
      throw error;
    }
  }

  private expand(path: string): string {
    if (path === '~') return this.policy.userHome;
    if (path.startsWith('~/')) return join(this.policy.userHome, path.slice(2));
    return path;
  }
}
