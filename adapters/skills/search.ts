import type { SearchHit, SkillRegistry } from './registry.js';
import { SearchCache } from './search-cache.js';
import { byCodePoint } from '../../store/code-point-order.js';

/** A merged result: its score is Tern's (0 to 1), `also_in` names other registries that offer the same slug. */
export interface RankedSkill extends SearchHit {
  registry_score: number;
  also_in: string[];
}

export interface RegistryFailure {
  registry: string;
  error: string;
}

export interface SearchOutcome {
  query: string;
  results: RankedSkill[];
  /** Registries that failed or ran out of time; the others' results are still given. */
  failures: RegistryFailure[];
  /** Served from the search cache: no registry was asked. */
  cached: boolean;
}

export class SkillSearchError extends Error {
  constructor(
    readonly code: 'query_empty' | 'no_registries',
    message: string,
  ) {
    super(message);
    this.name = 'SkillSearchError';
  }
}

export interface SkillSearchOptions {
  /** Registries asked at the same time (`max_concurrent_searches`). */
  maxConcurrent: number;
  cache: { maxSize: number; ttlMs: number };
  now?: () => number;
}

const round = (n: number): number => Math.round(n * 1000) / 1000;

function terms(query: string): string[] {
  return [...new Set(query.split(/[^\p{L}\p{N}]+/u).filter((t) => t.length > 1))];
}

/**
 * Registries score on scales of their own, so each registry's scores are divided by its best one; the share of
 * the query's words found in the slug, name and summary is added, so two registries' results can be ordered.
 */
function scored(hits: SearchHit[], words: string[]): RankedSkill[] {
  const best = Math.max(0, ...hits.map((h) => h.score));
  return hits.map((hit, index) => {
    const normalized = best > 0 ? hit.score / best : 1 - index / Math.max(hits.length, 1);
    const haystack = `${hit.slug} ${hit.display_name} ${hit.summary}`.toLowerCase();
    const matched = words.length > 0 ? words.filter((w) => haystack.includes(w)).length / words.length : 0;
    return { ...hit, registry_score: hit.score, score: round(0.6 * normalized + 0.4 * matched), also_in: [] };
  });
}

/** One entry per slug (the best scored; the others' registries in `also_in`), best first, at most `limit`. */
export function mergeResults(byRegistry: SearchHit[][], query: string, limit: number): RankedSkill[] {
  const words = terms(query);
  const bySlug = new Map<string, RankedSkill>();
  for (const hit of byRegistry.flatMap((hits) => scored(hits, words))) {
    const key = hit.slug.toLowerCase();
    const kept = bySlug.get(key);
    if (!kept) bySlug.set(key, hit);
    else if (hit.score > kept.score) bySlug.set(key, { ...hit, also_in: [...kept.also_in, kept.registry] });
    else kept.also_in.push(hit.registry);
  }
  return [...bySlug.values()].sort((a, b) => b.score - a.score || byCodePoint(a.slug, b.slug)).slice(0, limit);
}

/** Runs `tasks` with at most `width` of them started and not yet settled. */
async function limited<T>(tasks: Array<() => Promise<T>>, width: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    for (let i = next++; i < tasks.length; i = next++) results[i] = await tasks[i]!();
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(width, 1), tasks.length) }, lane));
  return results;
}

/**
 * Searches every enabled registry (at most `maxConcurrent` at once) and merges their results. A registry that fails
 * or times out is listed in `failures` beside the others' results. Complete answers are cached per query and limit.
 */
export class SkillSearch {
  private readonly cache: SearchCache<Omit<SearchOutcome, 'cached'>>;

  constructor(
    private readonly registries: readonly SkillRegistry[],
    private readonly options: SkillSearchOptions,
  ) {
    this.cache = new SearchCache(options.cache.maxSize, options.cache.ttlMs, options.now);
  }

  async search(rawQuery: string, limit: number, signal?: AbortSignal): Promise<SearchOutcome> {
    const query = rawQuery.trim().replace(/\s+/g, ' ').toLowerCase();
    if (query === '') throw new SkillSearchError('query_empty', 'the search query is empty');
    if (this.registries.length === 0)
      throw new SkillSearchError('no_registries', 'no skill registry is enabled (tools.skills.registries)');
    const key = `${limit}\u0000${query}`;
    const hit = this.cache.get(key);
    if (hit) return { ...hit, cached: true };
    const answers = await limited(
      this.registries.map((registry) => async () => {
        try {
          return { hits: await registry.search(query, limit, signal) };
        } catch (error) {
          return { failure: { registry: registry.name, error: (error as Error).message } };
        }
      }),
      this.options.maxConcurrent,
    );
    const failures = answers.flatMap((a) => (a.failure ? [a.failure] : []));
    const outcome = {
      query,
      results: mergeResults(
        answers.map((a) => a.hits ?? []),
        query,
        limit,
      ),
      failures,
    };
    if (failures.length === 0) this.cache.set(key, outcome);
    return { ...outcome, cached: false };
  }
}
