import type { ExecOptions } from '../options.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { ToolError } from '../tool.js';
import { commandPaths, placedCommands, type NamedLocation } from './command-paths.js';
import { isDangerous } from './deny-patterns.js';
import { allCommands, type SimpleCommand } from './shell-words.js';

export const DANGEROUS_PATTERN_MESSAGE = 'Command blocked by safety guard (dangerous pattern detected)';
export const OUTSIDE_WORKING_DIR_MESSAGE = 'Command blocked by safety guard (path outside working dir)';
export const REMOTE_EXEC_MESSAGE = 'exec is not allowed from remote channels (tools.exec.allow_remote is false)';

export type ExecVerdict =
  | { allowed: true }
  | { allowed: false; code: 'dangerous_pattern' | 'path_outside_working_dir' | 'remote_exec'; message: string };

/** An invalid user pattern is a configuration error; it names the field and the entry. */
export function compilePatterns(patterns: string[], field: string): RegExp[] {
  return patterns.map((pattern, i) => {
    try {
      return new RegExp(pattern, 'i');
    } catch (error) {
      throw new ToolError(
        'invalid_pattern',
        `${field}[${i}] is not a valid regular expression: ${(error as Error).message}`,
      );
    }
  });
}

/**
 * Decides whether a command line may run. Built once from trusted options; the checks are pure and
 * look only at the top-level command line, as the spec says.
 */
export class ExecGuard {
  private readonly deny: RegExp[];
  private readonly allow: RegExp[];

  constructor(
    private readonly options: ExecOptions,
    private readonly sandbox: Sandbox,
  ) {
    this.deny = compilePatterns(options.customDenyPatterns, 'tools.exec.custom_deny_patterns');
    this.allow = compilePatterns(options.customAllowPatterns, 'tools.exec.custom_allow_patterns');
  }

  /**
   * `isolated`: the command will run inside bubblewrap. The sandbox is then the boundary, and a bulk deletion
   * (`rm -rf build`, `find . -name '*.o' -delete`) whose every target lies in the workspace is the agent's own
   * business; without isolation the deny list refuses it, as the spec says.
   */
  check(command: string, cwd: string, remote: boolean, isolated = false): ExecVerdict {
    if (remote && !this.options.allowRemote)
      return { allowed: false, code: 'remote_exec', message: REMOTE_EXEC_MESSAGE };
    const commands = allCommands(command);
    if (this.matchesDeny(command, commands, cwd, isolated)) {
      return { allowed: false, code: 'dangerous_pattern', message: DANGEROUS_PATTERN_MESSAGE };
    }
    if (this.sandbox.policy.restrictToWorkspace && !this.pathsInside(command, commands, cwd, isolated)) {
      return { allowed: false, code: 'path_outside_working_dir', message: OUTSIDE_WORKING_DIR_MESSAGE };
    }
    return { allowed: true };
  }

  private matchesDeny(command: string, commands: SimpleCommand[], cwd: string, isolated: boolean): boolean {
    if (this.allow.some((pattern) => pattern.test(command))) return false;
    if (this.deny.some((pattern) => pattern.test(command))) return true;
    if (!this.options.enableDenyPatterns) return false;
    if (!isolated) return isDangerous(command, commands);
    const placed = new Map(placedCommands(command, this.context(cwd), commands).map((p) => [p.command, p.cwd]));
    return isDangerous(command, commands, (simple, targets) => {
      const at = placed.get(simple);
      return at !== undefined && targets.every((target) => !target.includes('$') && this.sandbox.contains(target, at));
    });
  }

  private context(cwd: string) {
    return { cwd, userHome: this.sandbox.policy.userHome };
  }

  /**
   * A path only known at run time (`"src/$name.txt"` in a loop) is refused without isolation; with it, the sandbox
   * shows nothing outside the workspace for it to reach, and a path known to lie outside is still refused.
   */
  private pathsInside(command: string, commands: SimpleCommand[], cwd: string, isolated: boolean): boolean {
    return commandPaths(command, this.context(cwd), commands).every((location) => this.inside(location, isolated));
  }

  private inside(location: NamedLocation, isolated: boolean): boolean {
    switch (location.kind) {
      case 'unknown':
        return isolated;
      case 'path':
        return this.sandbox.contains(location.path, location.cwd);
      case 'name':
        return this.sandbox.containsIfPresent(location.name, location.cwd);
    }
  }
}
