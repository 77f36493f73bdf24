import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  skillServices,
  SkillInstallError,
  SkillSearchError,
  type InstallResult,
  type SkillServices,
} from '../../skills/index.js';
import type { LoadedConfig } from '../../../store/config/index.js';
import { skillRoots } from '../../../store/skills.js';
import { findInstalled, installedRow, installedSkills, type InstalledSkill } from '../../../store/skills/installed.js';
import { bodyOf } from '../../../store/skills/skill-file.js';
import { print, type CommandContext } from '../command.js';
import { CliError, subcommandError, UsageError } from '../errors.js';
import { readConfigForCli } from '../load-config.js';
import { columns } from '../table.js';
import { evolutionCommand, EVOLUTION_SUBCOMMANDS } from './skills-drafts.js';

const SUBCOMMANDS = ['list', 'search', 'install', 'remove', 'show', ...EVOLUTION_SUBCOMMANDS] as const;
const HELP = 'Run `tern skills --help`.';
const SEARCH_LIMIT = { default: 10, max: 50 };

function loaded(context: CommandContext): LoadedConfig {
  const config = readConfigForCli(context.env);
  for (const warning of config.warnings) print(context.stderr, `tern: warning: ${warning}`);
  return config;
}

function services(config: LoadedConfig): SkillServices {
  return skillServices(config.config.tools.skills, {
    workspace: join(config.workspace, 'skills'),
    global: join(config.home, 'skills'),
  });
}

function text(context: CommandContext, flag: string): string | undefined {
  const value = context.values[flag];
  return typeof value === 'string' ? value : undefined;
}

function argument(context: CommandContext, sub: string, what: string): string {
  const value = context.positionals.slice(1).join(' ').trim();
  if (!value) throw new UsageError(`skills ${sub} needs ${what}`, HELP);
  return value;
}

function installFailure(error: unknown, what: string): unknown {
  if (error instanceof SkillInstallError) {
    const fixes: Record<string, string> = {
      registry_unknown: 'Check tools.skills.registries in the config, or pass --registry NAME.',
      registry_failed: 'Check the registry address, token and proxy, then try again.',
      slug_invalid: 'Use a slug from `tern skills search`, or owner/repo[/path][@ref].',
      malware_blocked: 'Choose another skill.',
      suspicious: 'Read the skill first; add --force only if you trust it.',
      already_installed: 'Run `tern skills remove NAME` first, or add --force to replace it.',
      archive_refused: 'Nothing was installed; ask the skill author, or choose another skill.',
      skill_invalid: 'Nothing was installed; ask the skill author, or choose another skill.',
      not_installed: 'Run `tern skills list` to see what is installed.',
    };
    return new CliError(error.code, what, error.message, fixes[error.code] ?? HELP);
  }
  if (error instanceof SkillSearchError) {
    return new CliError(
      error.code,
      what,
      error.message,
      error.code === 'query_empty' ? 'Give words to search for.' : 'Enable a registry in tools.skills.registries.',
    );
  }
  return error;
}

function sourceOf(skill: InstalledSkill): string {
  if (skill.origin) return `${skill.origin.registry}/${skill.origin.slug}@${skill.origin.installed_version}`;
  return skill.root === 'builtin' ? 'built-in' : 'local';
}

function list(context: CommandContext): number {
  const config = loaded(context);
  const skills = installedSkills(skillRoots(config.workspace, config.home, context.env));
  if (context.json) print(context.stdout, JSON.stringify({ ok: true, skills: skills.map(installedRow) }));
  else if (skills.length === 0) print(context.stdout, 'no skills installed');
  else {
    const rows = skills.map((s) => [
      s.name,
      s.root,
      sourceOf(s),
      `${s.shadowed ? '(hidden by an earlier root) ' : ''}${s.description}`,
    ]);
    print(context.stdout, columns(['NAME', 'ROOT', 'SOURCE', 'DESCRIPTION'], rows));
  }
  return 0;
}

function limitOf(context: CommandContext): number {
  const raw = text(context, 'limit');
  if (raw === undefined) return SEARCH_LIMIT.default;
  const limit = Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_LIMIT.max)
    throw new UsageError(`--limit "${raw}" is not a whole number from 1 to ${SEARCH_LIMIT.max}`, HELP);
  return limit;
}

async function search(context: CommandContext): Promise<number> {
  const query = argument(context, 'search', 'a query');
  const limit = limitOf(context);
  const skills = services(loaded(context));
  const outcome = await skills.search.search(query, limit, context.signal).catch((error: unknown) => {
    throw installFailure(error, 'the skill search cannot run');
  });
  if (outcome.failures.length === skills.registries.length) {
    throw new CliError(
      'registry_failed',
      'no registry answered the search',
      outcome.failures.map((f) => `${f.registry}: ${f.error}`).join('; '),
      'Check the registry addresses, tokens and proxies, then try again.',
    );
  }
  if (context.json) {
    print(context.stdout, JSON.stringify({ ok: true, ...outcome }));
    return 0;
  }
  for (const failure of outcome.failures)
    print(
      context.stderr,
      `tern: warning: registry ${failure.registry} failed (${failure.error}); the others' results are shown`,
    );
  if (outcome.results.length === 0) print(context.stdout, `no skills found for "${outcome.query}"`);
  else {
    const rows = outcome.results.map((r) => [
      r.slug,
      r.version || '-',
      [r.registry, ...r.also_in].join(','),
      r.score.toFixed(3),
      r.summary,
    ]);
    print(context.stdout, columns(['SLUG', 'VERSION', 'REGISTRY', 'SCORE', 'SUMMARY'], rows));
  }
  return 0;
}

function installedLine(result: InstallResult): string {
  const where = result.path;
  switch (result.action) {
    case 'unchanged':
      return (
        `${result.name} ${result.version} from ${result.registry} is ` +
        `already installed (${where}); --force reinstalls it`
      );
    case 'upgraded':
      return (
        `upgraded ${result.name} from ${result.previous_version} to ` +
        `${result.version} (${result.registry}/${result.slug}) in ${where}`
      );
    case 'reinstalled':
      return `reinstalled ${result.name} ${result.version} from ${result.registry} in ${where}`;
    default:
      return `installed ${result.name} ${result.version} from ${result.registry}/${result.slug} into ${where}`;
  }
}

async function install(context: CommandContext): Promise<number> {
  const ref = argument(context, 'install', 'a skill: slug[@version] or owner/repo[/path][@ref]');
  const request = {
    ref,
    force: context.values.force === true,
    global: context.values.global === true,
    ...(text(context, 'version') !== undefined ? { version: text(context, 'version')! } : {}),
    ...(text(context, 'registry') !== undefined ? { registry: text(context, 'registry')! } : {}),
  };
  const result = await services(loaded(context))
    .installer.install(request, context.signal)
    .catch((error: unknown) => {
      throw installFailure(error, `${ref} was not installed`);
    });
  for (const warning of result.warnings) print(context.stderr, `tern: warning: ${warning}`);
  print(context.stdout, context.json ? JSON.stringify({ ok: true, ...result }) : installedLine(result));
  return 0;
}

function remove(context: CommandContext): number {
  const name = argument(context, 'remove', 'a skill name');
  const config = loaded(context);
  const builtin = installedSkills(
    skillRoots(config.workspace, config.home, context.env).filter((r) => r.root === 'builtin'),
  );
  let removed;
  try {
    removed = services(config).installer.remove(name, { global: context.values.global === true });
  } catch (error) {
    if (error instanceof SkillInstallError && findInstalled(builtin, name)) {
      throw new CliError(
        'skill_builtin',
        `${name} was not removed`,
        'it is a built-in skill',
        'Built-in skills stay; a skill of the same name in the workspace skills/ takes its place.',
      );
    }
    throw installFailure(error, `${name} was not removed`);
  }
  print(
    context.stdout,
    context.json ? JSON.stringify({ ok: true, removed }) : `removed ${removed.name} (${removed.path})`,
  );
  return 0;
}

function show(context: CommandContext): number {
  const name = argument(context, 'show', 'a skill name');
  const config = loaded(context);
  const skills = installedSkills(skillRoots(config.workspace, config.home, context.env));
  const skill = findInstalled(skills, name);
  if (!skill)
    throw new CliError(
      'skill_unknown',
      `no skill "${name}"`,
      `installed: ${[...new Set(skills.map((s) => s.name))].join(', ') || 'none'}`,
      'Run `tern skills list`.',
    );
  const content = readFileSync(join(skill.dir, 'SKILL.md'), 'utf8');
  if (context.json) {
    print(context.stdout, JSON.stringify({ ok: true, skill: { ...installedRow(skill), content } }));
    return 0;
  }
  const origin = skill.origin;
  print(
    context.stdout,
    `${skill.name} (${skill.root}, ` +
      `${skill.dir})${skill.shadowed ? ' — hidden by a skill of the same name in an earlier root' : ''}`,
  );
  print(context.stdout, skill.description);
  print(
    context.stdout,
    origin
      ? `from ${origin.registry}/${origin.slug} ${origin.installed_version}, sha256 ` +
          `${origin.sha256}, installed ${new Date(origin.installed_at).toISOString()}`
      : `source: ${sourceOf(skill)}`,
  );
  print(context.stdout, '');
  print(context.stdout, bodyOf(content));
  return 0;
}

const HANDLERS: Record<(typeof SUBCOMMANDS)[number], (context: CommandContext) => number | Promise<number>> = {
  list,
  search,
  install,
  remove,
  show,
  drafts: (context) => evolutionCommand(context, 'drafts', loaded(context)),
  accept: (context) => evolutionCommand(context, 'accept', loaded(context)),
  reject: (context) => evolutionCommand(context, 'reject', loaded(context)),
};

export async function run(context: CommandContext): Promise<number> {
  const [sub] = context.positionals;
  const handler =
    sub !== undefined && Object.hasOwn(HANDLERS, sub) ? HANDLERS[sub as keyof typeof HANDLERS] : undefined;
  if (!handler) throw subcommandError('skills', sub, SUBCOMMANDS);
  return handler(context);
}
