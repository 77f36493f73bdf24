import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { agentHome, builtinSkillsDir, configPath, credentialsPath, expandHome, extraLogFile } from '../paths.js';
import type { Credentials } from './credentials-schema.js';
import { applyCredentials, readCredentials } from './credentials.js';
import { applyEnv } from './env.js';
import { channelProblems, crossFieldProblems } from './cross-checks.js';
import { ConfigError } from './errors.js';
import { readConfigObject } from './files.js';
import type { Migration } from './migrate.js';
import { prepare } from './prepare.js';
import { configErrorMap, formatIssues } from './problems.js';
import { clone, isRecord, type RawObject } from './raw.js';
import { noteSecretSources } from './runtime-secrets.js';
import { configSchema, type Config } from './schema/index.js';
import { rawSecrets, rememberSecrets } from './redactor.js';
import { Secret, secretValues } from './secret.js';
import { mergeCredentials, splitSecrets } from './split.js';
import { unknownKeys } from './unknown-keys.js';
import { hardwareWarning } from './hardware-keys.js';
import { writeMigration } from './write-migration.js';

export interface LoadedConfig {
  config: Config;
  /** The config file read (it may not exist: then every value is a default). */
  path: string;
  home: string;
  /** `agents.defaults.workspace`, expanded and absolute. */
  workspace: string;
  warnings: string[];
  /** What was read differently from how it is written (the peer runtime's forms): for the user's information. */
  notes: string[];
  /** What stops an enabled channel from starting (a missing token): the rest runs, `tern config validate` fails. */
  channelProblems: string[];
  credentialsPath: string;
  builtinSkills: string;
  logFile?: string;
  /** An old dashboard token found in the config or credentials, for the launcher to migrate once. */
  launcherToken?: Secret;
}

export interface LoadOptions {
  env?: NodeJS.ProcessEnv;
  /** Read this file instead of `AGENT_CONFIG` / `<AGENT_HOME>/config.json`. */
  path?: string;
  /** Rewrite a version 0/1 file as version 2 (with backups). Off for read-only callers such as `config validate`. */
  rewrite?: boolean;
  /**
   * More problems (and warnings) to report with the loader's own, from the effective raw config whatever its types:
   * the front door adds what only the provider layer knows, so every problem is listed at once. It may change the
   * raw config (switch off an entry it warns about) before it is parsed.
   */
  check?: (raw: RawObject) => { problems: string[]; warnings: string[] };
}

export type Validation =
  | { ok: true; config: Config; warnings: string[]; notes: string[] }
  | { ok: false; problems: string[] };

const readConfigFile = (path: string): RawObject => (existsSync(path) ? readConfigObject(path) : {});

interface ParseInput {
  raw: RawObject;
  file: string;
  origins: Map<string, string>;
  warnings: string[];
  /** Problems found besides the schema's: cross-field checks and the caller's own. */
  problems: string[];
  /** Listed with the others when the config is unusable anyway, else left to the caller. */
  alsoWhenInvalid?: string[];
}

/** The config, or a `ConfigError` with the schema's problems and every other one found, in one list. */
function parse({ raw, file, origins, warnings, problems, alsoWhenInvalid = [] }: ParseInput): Config {
  // Parsed once per load: compiling zod's fast path for every object of the schema costs more than it saves.
  const result = configSchema.safeParse(raw, { error: configErrorMap, jitless: true });
  const all = [...(result.success ? [] : formatIssues(result.error.issues, origins)), ...problems];
  if (!result.success || all.length > 0) throw new ConfigError('config_invalid', file, [...all, ...alsoWhenInvalid]);
  for (const { path, suggestion } of unknownKeys(raw, result.data, configSchema)) {
    warnings.push(
      hardwareWarning(path) ?? `unknown key ${path} (ignored${suggestion ? `; did you mean \`${suggestion}\`?` : ''})`,
    );
  }
  return result.data;
}

/** A migrated config as it will be on disk: secrets moved into the credentials, which keep what they held. */
function splitMigrated(migration: Migration, held: Credentials): { base: RawObject; credentials: Credentials } {
  const base = clone(migration.raw);
  return { base, credentials: mergeCredentials(held, splitSecrets(base, migration.launcherToken)) };
}

function workspaceOf(config: Config, home: string): string {
  return resolve(expandHome(config.agents.defaults.workspace ?? join(home, 'workspace')));
}

/**
 * The effective config: defaults < `config.json` < `.security.yml` < environment. A missing config file
 * means all defaults. Throws `ConfigError` listing every problem at once.
 */
export function loadConfig(options: LoadOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const path = options.path ? resolve(expandHome(options.path)) : configPath(env);
  const home = agentHome(env);
  const secretsPath = credentialsPath(env);
  const warnings: string[] = [];
  const notes: string[] = [];
  const { raw, migration } = prepare(readConfigFile(path), path, warnings, notes);
  const held = readCredentials(secretsPath);
  warnings.push(...held.warnings);
  const { base, credentials } = migration
    ? splitMigrated(migration, held.credentials)
    : { base: raw, credentials: held.credentials };
  const effective = clone(base);
  const origins = new Map<string, string>();
  applyCredentials(effective, credentials, origins, warnings);
  applyEnv(effective, env, origins, warnings);
  // Before any check: whatever this process prints about this config (a problem quoting a value, a provider's error)
  // masks its keys, the ones of a config that turns out unusable too.
  rememberSecrets([...rawSecrets(credentials, true), ...rawSecrets(effective)]);
  const checked = options.check?.(effective) ?? { problems: [], warnings: [] };
  warnings.push(...checked.warnings);
  const blocking = [...crossFieldProblems(effective), ...checked.problems];
  const channels = channelProblems(effective);
  // A config that cannot load lists what its channels lack too: every problem at once.
  const config = parse({
    raw: effective,
    file: path,
    origins,
    warnings,
    problems: blocking,
    alsoWhenInvalid: channels,
  });
  if (migration) {
    warnings.push(...migration.notes);
    if (options.rewrite !== false) warnings.push(writeMigration(base, credentials, path, secretsPath));
  }
  rememberSecrets(secretValues(config));
  const workspace = workspaceOf(config, home);
  config.agents.defaults.workspace = workspace;
  noteSecretSources(config, { env, home });
  const token = credentials.launcher_token;
  const logFile = extraLogFile(env);
  return {
    config,
    path,
    home,
    workspace,
    warnings,
    notes,
    channelProblems: channels,
    credentialsPath: secretsPath,
    builtinSkills: builtinSkillsDir(env),
    ...(logFile ? { logFile } : {}),
    ...(token ? { launcherToken: new Secret(token) } : {}),
  };
}

/** Validates a config object as a file would be read (any known version, aliases), without env or credentials. */
export function validateConfig(input: unknown): Validation {
  if (!isRecord(input))
    return { ok: false, problems: ['(config): is not an object (allowed: a JSON object of blocks)'] };
  const warnings: string[] = [];
  const notes: string[] = [];
  try {
    const { raw } = prepare(clone(input), '(input)', warnings, notes);
    const problems = crossFieldProblems(raw);
    return {
      ok: true,
      config: parse({ raw, file: '(input)', origins: new Map(), warnings, problems }),
      warnings,
      notes,
    };
  } catch (error) {
    if (error instanceof ConfigError) return { ok: false, problems: error.problems };
    throw error;
  }
}
