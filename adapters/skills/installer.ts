import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SkillArchiveError, type ArchiveLimits } from '../../store/skills/archive.js';
import { findInstalled, installedSkills, removeSkillFolder } from '../../store/skills/installed.js';
import { readOrigin } from '../../store/skills/origin.js';
import { SkillFileError } from '../../store/skills/skill-file.js';
import { SkillFolderError, SkillStaging } from '../../store/skills/staging.js';
import { RegistryHttpError } from './http.js';
import { resolveRef } from './refs.js';
import { SkillInstallError, type SkillMeta, type SkillRegistry } from './registry.js';

/** The two roots installs write to: the workspace's `skills/` and `<AGENT_HOME>/skills` (`--global`). */
export interface InstallRoots {
  workspace: string;
  global: string;
}

export interface InstallRequest {
  ref: string;
  registry?: string;
  version?: string;
  /** Installs a skill the registry flags as suspicious, and replaces a skill that came from elsewhere. */
  force?: boolean;
  global?: boolean;
}

export type InstallAction = 'installed' | 'upgraded' | 'reinstalled' | 'unchanged';

export interface InstallResult {
  action: InstallAction;
  name: string;
  description: string;
  folder: string;
  path: string;
  root: 'workspace' | 'global';
  registry: string;
  slug: string;
  version: string;
  previous_version?: string;
  sha256: string;
  /** Why the user should look at it: a suspicious flag installed with `force`. */
  warnings: string[];
}

export interface RemoveResult {
  name: string;
  folder: string;
  root: 'workspace' | 'global';
  path: string;
}

function registryFailure(registry: SkillRegistry, error: unknown): never {
  if (error instanceof SkillInstallError) throw error;
  if (error instanceof RegistryHttpError && error.code === 'too_large')
    throw new SkillInstallError('archive_refused', `registry ${registry.name}: ${error.message}`);
  throw new SkillInstallError('registry_failed', `registry ${registry.name}: ${(error as Error).message}`);
}

function moderation(meta: SkillMeta, force: boolean): string[] {
  const id = `${meta.registry}/${meta.slug}`;
  if (meta.malware_blocked)
    throw new SkillInstallError(
      'malware_blocked',
      `${id} is blocked by the registry as malware and is never installed`,
    );
  if (!meta.suspicious) return [];
  const why = `${id} is flagged as suspicious by the registry (its moderation found risky patterns)`;
  if (!force)
    throw new SkillInstallError(
      'suspicious',
      `${why}; read it at the registry first, and install with --force (force: true) only if you trust it`,
    );
  return [`${why}; installed because force was given`];
}

/**
 * Installs skills from registries: moderation first, then the archive is streamed into a stage inside the skill
 * root, unpacked with every entry checked, its SKILL.md checked, and renamed into place with an origin file.
 * Installing a skill that came from the same registry and slug upgrades it; the same version is left alone.
 */
export class SkillInstaller {
  constructor(
    private readonly registries: readonly SkillRegistry[],
    private readonly roots: InstallRoots,
    private readonly options: { now?: () => Date; limits?: ArchiveLimits } = {},
  ) {}

  async install(request: InstallRequest, signal?: AbortSignal): Promise<InstallResult> {
    const target = resolveRef(this.registries, request.ref, request);
    const { registry } = target;
    const meta = await registry.meta(target.slug, signal).catch((error: unknown) => registryFailure(registry, error));
    const warnings = moderation(meta, request.force === true);
    const source = registry.source(meta, target.version);
    const rootName = request.global ? 'global' : 'workspace';
    const root = this.roots[rootName];
    const existingDir = join(root, source.folder);
    const previous = existsSync(existingDir) ? readOrigin(existingDir) : undefined;
    const same = previous?.registry === registry.name && previous.slug === meta.slug;
    if (existsSync(existingDir) && !same && request.force !== true) {
      const from = previous
        ? `it came from ${previous.registry}/${previous.slug}`
        : 'it was not installed from a registry';
      throw new SkillInstallError(
        'already_installed',
        `a skill folder ${source.folder} already exists in ${root} ` +
          `(${from}); remove it first or install with --force to replace it`,
      );
    }
    if (same && previous.installed_version === source.version && request.force !== true) {
      const header = installedSkills([{ root: rootName, dir: root }]).find((s) => s.folder === source.folder);
      const kept = { registry: registry.name, slug: meta.slug, version: source.version, sha256: previous.sha256 };
      return this.result('unchanged', kept, { folder: source.folder, root, rootName }, header, warnings);
    }
    const staging = SkillStaging.open(root);
    try {
      const downloaded = await registry
        .download(source, staging.archiveStream(), signal)
        .catch((error: unknown) => registryFailure(registry, error));
      const header = await staging
        .unpack({ within: source.within, ...(this.options.limits ? { limits: this.options.limits } : {}) })
        .catch((error: unknown) => {
          if (error instanceof SkillArchiveError)
            throw new SkillInstallError(
              'archive_refused',
              `${registry.name}/${meta.slug} was refused: ${error.message}`,
            );
          if (error instanceof SkillFileError || error instanceof SkillFolderError)
            throw new SkillInstallError(
              'skill_invalid',
              `${registry.name}/${meta.slug} is not a valid skill: ${error.message}`,
            );
          throw error;
        });
      const now = this.options.now?.() ?? new Date();
      const origin = {
        version: 1 as const,
        registry: registry.name,
        slug: meta.slug,
        installed_version: source.version,
        installed_at: now.getTime(),
        sha256: downloaded.sha256,
      };
      const committed = staging.commit(source.folder, { origin });
      const action: InstallAction = !committed.replaced
        ? 'installed'
        : same && previous.installed_version === source.version
          ? 'reinstalled'
          : same
            ? 'upgraded'
            : 'installed';
      return {
        ...this.result(
          action,
          { ...origin, version: source.version },
          { folder: source.folder, root, rootName },
          header,
          warnings,
        ),
        ...(same && previous.installed_version !== source.version
          ? { previous_version: previous.installed_version }
          : {}),
      };
    } finally {
      staging.discard();
    }
  }

  private result(
    action: InstallAction,
    origin: { registry: string; slug: string; version: string; sha256: string },
    where: { folder: string; root: string; rootName: 'workspace' | 'global' },
    header: { name: string; description: string } | undefined,
    warnings: string[],
  ): InstallResult {
    return {
      action,
      name: header?.name ?? where.folder,
      description: header?.description ?? '',
      folder: where.folder,
      path: join(where.root, where.folder),
      root: where.rootName,
      registry: origin.registry,
      slug: origin.slug,
      version: origin.version,
      sha256: origin.sha256,
      warnings,
    };
  }

  /** Removes an installed skill by folder or name from the workspace root (or the global one); built-in skills stay. */
  remove(name: string, options: { global?: boolean } = {}): RemoveResult {
    const rootName = options.global ? 'global' : 'workspace';
    const root = this.roots[rootName];
    const found = findInstalled(installedSkills([{ root: rootName, dir: root }]), name);
    if (!found) {
      const other = options.global ? 'workspace' : 'global';
      const elsewhere = findInstalled(installedSkills([{ root: other, dir: this.roots[other] }]), name);
      const hint = elsewhere
        ? `; it is installed in the ${other} skills ` +
          `(${elsewhere.dir})${other === 'global' ? ', remove it with --global' : ', remove it without --global'}`
        : '';
      throw new SkillInstallError('not_installed', `no skill "${name}" in ${root}${hint}`);
    }
    removeSkillFolder(found, root);
    return { name: found.name, folder: found.folder, root: rootName, path: found.dir };
  }
}
