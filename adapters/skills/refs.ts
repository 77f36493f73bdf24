import { SkillInstallError, type SkillRegistry } from './registry.js';

export interface InstallTarget {
  registry: SkillRegistry;
  slug: string;
  version?: string;
}

function firstOfKind(registries: readonly SkillRegistry[], kind: SkillRegistry['kind']): SkillRegistry | undefined {
  return registries.find((r) => r.kind === kind && r.name === kind) ?? registries.find((r) => r.kind === kind);
}

function enabledNames(registries: readonly SkillRegistry[]): string {
  return registries.map((r) => r.name).join(', ') || 'none';
}

/**
 * What `install REF` means: `slug[@version]` from the ClawHub-style registry (`clawhub` first),
 * `owner/repo[/path][@ref]` from the GitHub-style one, or any slug from the registry named with `registry`.
 */
export function resolveRef(
  registries: readonly SkillRegistry[],
  ref: string,
  options: { registry?: string; version?: string } = {},
): InstallTarget {
  const trimmed = ref.trim();
  const at = trimmed.lastIndexOf('@');
  const slug = at > 0 ? trimmed.slice(0, at) : trimmed;
  const inline = at > 0 ? trimmed.slice(at + 1) : undefined;
  if (inline !== undefined && options.version !== undefined && inline !== options.version) {
    throw new SkillInstallError(
      'slug_invalid',
      `"${ref}" names version ${inline} and --version says ${options.version} (give it once)`,
    );
  }
  const version = options.version ?? inline;
  if (slug === '' || version === '')
    throw new SkillInstallError(
      'slug_invalid',
      `"${ref}" names no skill (allowed: slug[@version] or owner/repo[/path][@ref])`,
    );
  let registry: SkillRegistry | undefined;
  if (options.registry !== undefined) {
    registry = registries.find((r) => r.name === options.registry);
    if (!registry)
      throw new SkillInstallError(
        'registry_unknown',
        `no enabled registry named "${options.registry}" (enabled: ${enabledNames(registries)})`,
      );
  } else {
    const kind = slug.includes('/') ? 'github' : 'clawhub';
    registry = firstOfKind(registries, kind);
    if (!registry)
      throw new SkillInstallError(
        'registry_unknown',
        `no enabled ${kind === 'github' ? 'GitHub' : 'ClawHub'}-style ` +
          `registry for "${slug}" (enabled: ${enabledNames(registries)})`,
      );
  }
  return { registry, slug, ...(version !== undefined ? { version } : {}) };
}
