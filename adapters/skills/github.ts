import type { Writable } from 'node:stream';
import * as z from 'zod';
import { download, getJson, RegistryHttpError, type Downloaded, type RegistryHttpOptions } from './http.js';
import { checkSlug } from './clawhub.js';
import {
  SkillInstallError,
  type ArchiveSource,
  type SearchHit,
  type SkillMeta,
  type SkillRegistry,
} from './registry.js';
import { requestOptions, type RegistrySettings } from './settings.js';

const GITHUB_JSON = 'application/vnd.github+json';
const SEGMENT = /^[A-Za-z0-9_.-]+$/;

export interface GitHubTarget {
  owner: string;
  repo: string;
  /** The skill's folder inside the repository; empty: its top. */
  path: string;
}

/** `owner/repo[/path]`, each part a plain name (no `.` or `..`). */
export function parseGitHubSlug(slug: string): GitHubTarget {
  const parts = slug.replace(/^\/+|\/+$/g, '').split('/');
  const bad = parts.length < 2 || parts.some((p) => !SEGMENT.test(p) || p === '.' || p === '..');
  if (bad)
    throw new SkillInstallError(
      'slug_invalid',
      `"${slug}" is not a GitHub skill (allowed: owner/repo or owner/repo/path/to/skill, optionally @ref)`,
    );
  const [owner, repo, ...rest] = parts as [string, string, ...string[]];
  return { owner, repo, path: rest.join('/') };
}

/**
 * The REST API root for `base_url`: github.com (or api.github.com) is `https://api.github.com`; an enterprise host
 * answers under `/api/v3`, given or not.
 */
export function githubApiBase(baseUrl: string): string {
  const url = new URL(baseUrl);
  if (url.host === 'github.com' || url.host === 'api.github.com') return 'https://api.github.com';
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${path.endsWith('/api/v3') ? path : `${path}/api/v3`}`;
}

const codeSearchSchema = z.looseObject({
  items: z
    .array(
      z.looseObject({
        path: z.string(),
        score: z.number().nullish(),
        repository: z.looseObject({
          full_name: z.string(),
          name: z.string(),
          description: z.string().nullish(),
          default_branch: z.string().nullish(),
        }),
      }),
    )
    .nullish(),
});

const repositorySchema = z.looseObject({ default_branch: z.string().min(1) });

/** Searches and installs skills kept in repositories, through the host's code search and archive (zipball) API. */
export class GitHubRegistry implements SkillRegistry {
  readonly kind = 'github';
  readonly name: string;
  readonly maxZipBytes: number;
  private readonly api: string;

  constructor(private readonly settings: RegistrySettings) {
    this.name = settings.name;
    this.maxZipBytes = settings.maxZipBytes;
    this.api = githubApiBase(settings.baseUrl);
  }

  private options(signal?: AbortSignal): RegistryHttpOptions {
    return requestOptions(this.settings, signal, GITHUB_JSON);
  }

  /**
   * Code search for `SKILL.md` files. Without a token the host refuses code search (401) or soon rate-limits it
   * (403); as in the peer runtime that is no results rather than a failure, since it is the default setup.
   */
  async search(query: string, limit: number, signal?: AbortSignal): Promise<SearchHit[]> {
    const url = new URL(`${this.api}/search/code`);
    url.searchParams.set('q', `${query} filename:SKILL.md`);
    url.searchParams.set('per_page', String(limit > 0 ? limit : 5));
    let answer: unknown;
    try {
      answer = await getJson(url.href, this.options(signal));
    } catch (error) {
      if (!this.settings.token && error instanceof RegistryHttpError && (error.status === 401 || error.status === 403))
        return [];
      throw error;
    }
    const parsed = codeSearchSchema.safeParse(answer);
    if (!parsed.success)
      throw new SkillInstallError('registry_failed', `registry ${this.name} sent a search answer of the wrong shape`);
    return (parsed.data.items ?? []).flatMap((item) => {
      const file = item.path.replace(/^\/+|\/+$/g, '');
      if (file !== 'SKILL.md' && !file.endsWith('/SKILL.md')) return [];
      const dir = file.slice(0, -'SKILL.md'.length).replace(/\/$/, '');
      const { repository } = item;
      return [
        {
          registry: this.name,
          slug: dir ? `${repository.full_name}/${dir}` : repository.full_name,
          display_name: dir ? dir.split('/').at(-1)! : repository.name,
          summary: repository.description?.trim() ?? '',
          version: repository.default_branch ?? '',
          score: item.score ?? 0,
        },
      ];
    });
  }

  /** The repository's default branch is the latest version; repositories carry no moderation flags. */
  async meta(slug: string, signal?: AbortSignal): Promise<SkillMeta> {
    const target = parseGitHubSlug(slug);
    const answer = repositorySchema.safeParse(
      await getJson(`${this.api}/repos/${target.owner}/${target.repo}`, this.options(signal)),
    );
    if (!answer.success)
      throw new SkillInstallError(
        'registry_failed',
        `registry ${this.name} did not say the default branch of ${target.owner}/${target.repo}`,
      );
    return {
      registry: this.name,
      slug: [target.owner, target.repo, target.path].filter(Boolean).join('/'),
      display_name: target.path ? target.path.split('/').at(-1)! : target.repo,
      summary: '',
      latest_version: answer.data.default_branch,
      malware_blocked: false,
      suspicious: false,
    };
  }

  source(meta: SkillMeta, version: string | undefined): ArchiveSource {
    const target = parseGitHubSlug(meta.slug);
    const ref = version || meta.latest_version || 'HEAD';
    return {
      url: `${this.api}/repos/${target.owner}/${target.repo}/zipball/${encodeURIComponent(ref)}`,
      version: ref,
      within: target.path,
      folder: checkSlug(target.path ? target.path.split('/').at(-1)! : target.repo),
    };
  }

  download(source: ArchiveSource, sink: Writable, signal?: AbortSignal): Promise<Downloaded> {
    return download(source.url, sink, {
      ...this.options(signal),
      accept: GITHUB_JSON,
      maxBytes: this.settings.maxZipBytes,
    });
  }
}
