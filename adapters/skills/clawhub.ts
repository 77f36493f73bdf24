import type { Writable } from 'node:stream';
import * as z from 'zod';
import { download, getJson, type Downloaded, type RegistryHttpOptions } from './http.js';
import {
  SkillInstallError,
  type ArchiveSource,
  type SearchHit,
  type SkillMeta,
  type SkillRegistry,
} from './registry.js';
import { requestOptions, type RegistrySettings } from './settings.js';

const SLUG = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

const text = z.string().nullish();

// The ClawHub wire shapes: `GET search?q=&limit=` and `GET skills/{slug}`. Fields may be null or missing.
const searchAnswerSchema = z.looseObject({
  results: z
    .array(z.looseObject({ score: z.number().nullish(), slug: text, displayName: text, summary: text, version: text }))
    .nullish(),
});

const metaAnswerSchema = z.looseObject({
  slug: text,
  displayName: text,
  summary: text,
  latestVersion: z.looseObject({ version: text }).nullish(),
  moderation: z.looseObject({ isMalwareBlocked: z.boolean().nullish(), isSuspicious: z.boolean().nullish() }).nullish(),
});

function parsed<T>(schema: z.ZodType<T>, value: unknown, what: string, registry: string): T {
  const result = schema.safeParse(value);
  if (!result.success)
    throw new SkillInstallError('registry_failed', `registry ${registry} sent a ${what} answer of the wrong shape`);
  return result.data;
}

export function checkSlug(slug: string): string {
  if (!SLUG.test(slug))
    throw new SkillInstallError('slug_invalid', `"${slug}" is not a skill slug (allowed: letters, digits, . _ -)`);
  return slug;
}

/** A ClawHub-style registry: search, metadata with moderation flags, and a zip per slug and version. */
export class ClawHubRegistry implements SkillRegistry {
  readonly kind = 'clawhub';

  readonly name: string;
  readonly maxZipBytes: number;

  constructor(private readonly settings: RegistrySettings) {
    this.name = settings.name;
    this.maxZipBytes = settings.maxZipBytes;
  }

  private options(signal?: AbortSignal): RegistryHttpOptions {
    return requestOptions(this.settings, signal);
  }

  async search(query: string, limit: number, signal?: AbortSignal): Promise<SearchHit[]> {
    const url = new URL(this.settings.baseUrl + this.settings.searchPath);
    url.searchParams.set('q', query);
    if (limit > 0) url.searchParams.set('limit', String(limit));
    const answer = parsed(searchAnswerSchema, await getJson(url.href, this.options(signal)), 'search', this.name);
    // As the peer runtime does: a result without a slug or a summary is not shown.
    return (answer.results ?? []).flatMap((r) =>
      r.slug && r.summary
        ? [
            {
              registry: this.name,
              slug: r.slug,
              display_name: r.displayName || r.slug,
              summary: r.summary,
              version: r.version ?? '',
              score: r.score ?? 0,
            },
          ]
        : [],
    );
  }

  async meta(slug: string, signal?: AbortSignal): Promise<SkillMeta> {
    const url = `${this.settings.baseUrl}${this.settings.skillsPath}/${encodeURIComponent(checkSlug(slug))}`;
    const answer = parsed(metaAnswerSchema, await getJson(url, this.options(signal)), 'skill', this.name);
    const version = answer.latestVersion?.version;
    return {
      registry: this.name,
      slug: answer.slug || slug,
      display_name: answer.displayName || slug,
      summary: answer.summary ?? '',
      ...(version ? { latest_version: version } : {}),
      malware_blocked: answer.moderation?.isMalwareBlocked === true,
      suspicious: answer.moderation?.isSuspicious === true,
    };
  }

  source(meta: SkillMeta, version: string | undefined): ArchiveSource {
    const chosen = version || meta.latest_version || 'latest';
    const url = new URL(this.settings.baseUrl + this.settings.downloadPath);
    url.searchParams.set('slug', meta.slug);
    if (chosen !== 'latest') url.searchParams.set('version', chosen);
    return { url: url.href, version: chosen, within: '', folder: checkSlug(meta.slug) };
  }

  download(source: ArchiveSource, sink: Writable, signal?: AbortSignal): Promise<Downloaded> {
    return download(source.url, sink, { ...this.options(signal), maxBytes: this.settings.maxZipBytes });
  }
}
