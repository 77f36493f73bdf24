import * as z from 'zod/mini';
import { describeValue, formatPath } from '../../problems.js';
import { bool, int, list, nonEmptyText, oneOf, pattern, remoteList } from '../fields.js';
import { optional, withDefault } from '../shared.js';

const ISOLATION_MODES = ['auto', 'bwrap', 'off'] as const;

/**
 * The peer runtime's `expose_paths` entry: a host folder shown inside the sandbox, at `target` (default: the same
 * path).
 */
const exposePathSchema = z.object({
  source: nonEmptyText(),
  target: optional(nonEmptyText()),
  mode: withDefault(oneOf(['ro', 'rw']), 'ro'),
});

/** The peer runtime's shape: `enabled` true requires bubblewrap, false turns it off, absent means `auto`. */
const isolationObjectSchema = z.object({
  enabled: optional(bool()),
  expose_paths: withDefault(list(exposePathSchema), []),
});

/** An object that is wrong is reported where it is wrong (`expose_paths[0].mode: …`), not as a wrong kind of value. */
function isolationProblem(input: unknown): string {
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
    const parsed = z.safeParse(isolationObjectSchema, input);
    if (!parsed.success)
      return parsed.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`).join('; ');
  }
  return (
    `${describeValue(input)} is not an isolation setting (allowed: "auto", "bwrap", "off", or ` +
    `{"enabled": true|false, "expose_paths": [{"source", "target", "mode": "ro"|"rw"}]})`
  );
}

const isolationSchema = z.union([z.enum(ISOLATION_MODES), isolationObjectSchema], {
  error: (issue) => isolationProblem(issue.input),
});

/**
 * What one command may use inside the sandbox: processes (of its user, everything it started), memory (private
 * memory per process, and with cgroups the whole command's), bytes per file written.
 */
const limitsSchema = z.object({
  processes: withDefault(int(16, 65_536), 256),
  memory_mb: withDefault(int(64, 1_048_576), 1024),
  file_size_mb: withDefault(int(1, 1_048_576), 1024),
});

export const execSchema = z.object({
  enabled: withDefault(bool(), true),
  allow_remote: withDefault(bool(), false),
  enable_deny_patterns: withDefault(bool(), true),
  custom_deny_patterns: withDefault(list(pattern()), []),
  custom_allow_patterns: withDefault(list(pattern()), []),
  /** 0 means the built-in default. */
  timeout_seconds: withDefault(int(0), 0),
  /** Ask the user in the chat before each command runs. */
  require_approval: withDefault(bool(), false),
  isolation: withDefault(isolationSchema, 'auto'),
  /** false cuts isolated commands off the network; true gives them one of their own, without the host's loopback. */
  network: withDefault(bool(), true),
  limits: withDefault(limitsSchema, { processes: 256, memory_mb: 1024, file_size_mb: 1024 }),
});

export type ExecConfig = z.infer<typeof execSchema>;

/** `tools.exec.isolation` in either shape, as one mode and the exposed folders (targets filled in). */
export function execIsolation(exec: ExecConfig): {
  mode: (typeof ISOLATION_MODES)[number];
  expose: Array<{ source: string; target: string; mode: 'ro' | 'rw' }>;
} {
  const setting = exec.isolation;
  if (typeof setting === 'string') return { mode: setting, expose: [] };
  const mode = setting.enabled === undefined ? 'auto' : setting.enabled ? 'bwrap' : 'off';
  // One rule per target: a later entry for the same target replaces an earlier one.
  const byTarget = new Map(
    setting.expose_paths.map((path) => [
      path.target ?? path.source,
      { source: path.source, target: path.target ?? path.source, mode: path.mode },
    ]),
  );
  return { mode, expose: [...byTarget.values()] };
}

export const cronSchema = z.object({
  enabled: withDefault(bool(), true),
  allow_command: withDefault(bool(), true),
  command_allowed_remotes: withDefault(remoteList(), []),
  /** 0 means no limit. */
  exec_timeout_minutes: withDefault(int(0), 5),
  require_approval: withDefault(bool(), false),
});
