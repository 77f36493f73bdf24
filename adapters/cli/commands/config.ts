import { existsSync } from 'node:fs';
import { stringify } from 'yaml';
import { ConfigError, maskedConfig } from '../../../store/config/index.js';
import { configPath } from '../../../store/paths.js';
import type { CommandContext } from '../command.js';
import { print } from '../command.js';
import { CliError, subcommandError } from '../errors.js';
import { loadCheckedConfig, readConfigForCli } from '../load-config.js';

const SUBCOMMANDS = ['show', 'validate', 'path'] as const;

function show({ env, json, stdout, stderr }: CommandContext): number {
  const loaded = readConfigForCli(env);
  const masked = maskedConfig(loaded.config);
  if (json) print(stdout, JSON.stringify({ ok: true, path: loaded.path, config: masked, warnings: loaded.warnings }));
  else {
    print(stdout, `# ${loaded.path} (effective: defaults, file, credentials and environment; secrets masked)`);
    stdout.write(stringify(masked));
    for (const warning of loaded.warnings) print(stderr, `tern: warning: ${warning}`);
  }
  return 0;
}

/**
 * Every problem of the file at once (types, references, addresses, providers, channel requirements), then warnings
 * (unknown keys, each with the key it most likely meant) and notes (the peer runtime's forms, read as it means them).
 * Exit 1 only on problems; with `--strict`, warnings are problems too.
 */
function validate({ env, json, stdout, stderr, positionals, values }: CommandContext): number {
  const file = positionals[1];
  const strict = values.strict === true;
  if (file !== undefined && !existsSync(file)) {
    throw new CliError(
      'config_missing',
      `cannot validate ${file}`,
      'the file does not exist',
      'Check the path, or run `tern config path` to see the config in use.',
    );
  }
  try {
    const loaded = loadCheckedConfig({ env, rewrite: false, ...(file ? { path: file } : {}) });
    const problems = [
      ...loaded.channelProblems,
      ...(strict ? loaded.warnings.map((w) => `${w} (--strict: a warning counts as a problem)`) : []),
    ];
    if (problems.length > 0) throw new ConfigError('config_invalid', loaded.path, problems);
    if (json)
      print(stdout, JSON.stringify({ ok: true, path: loaded.path, warnings: loaded.warnings, notes: loaded.notes }));
    else {
      print(stdout, `${loaded.path}: valid`);
      for (const warning of loaded.warnings) print(stderr, `warning: ${warning}`);
      for (const note of loaded.notes) print(stderr, `note: ${note}`);
    }
    return 0;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    if (json)
      print(
        stdout,
        JSON.stringify({
          ok: false,
          path: error.file,
          problems: error.problems,
          ...(error.excerpt.length ? { excerpt: error.excerpt } : {}),
        }),
      );
    else {
      print(stderr, `${error.file}: ${error.problems.length} problem${error.problems.length === 1 ? '' : 's'}`);
      for (const problem of error.problems) print(stdout, problem);
      for (const line of error.excerpt) print(stdout, line);
    }
    return 1;
  }
}

export async function run(context: CommandContext): Promise<number> {
  const [sub] = context.positionals;
  switch (sub) {
    case 'show':
      return show(context);
    case 'validate':
      return validate(context);
    case 'path':
      print(
        context.stdout,
        context.json ? JSON.stringify({ ok: true, path: configPath(context.env) }) : configPath(context.env),
      );
      return 0;
    default:
      throw subcommandError('config', sub, SUBCOMMANDS);
  }
}
