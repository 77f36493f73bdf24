import * as z from 'zod';
import type { SearchOutcome } from '../../skills/search.js';
import { ok, type Tool } from '../tool.js';

const parameters = z.object({
  query: z.string().trim().min(1).describe("What the skill should do (e.g. 'github integration', 'weather forecast')"),
  limit: z.number().int().min(1).max(20).optional().describe('Maximum number of results (1-20, default 5)'),
});

export interface SkillFinder {
  search(query: string, limit: number, signal?: AbortSignal): Promise<SearchOutcome>;
}

/** The result text the model reads: one numbered entry per skill, then the registries that failed. */
export function describeOutcome(outcome: SearchOutcome): string {
  const lines: string[] = [];
  if (outcome.results.length === 0) lines.push(`No skills found for "${outcome.query}".`);
  else {
    lines.push(
      `Found ${outcome.results.length} skills for "${outcome.query}"${outcome.cached ? ' (cached)' : ''}:`,
      '',
    );
    outcome.results.forEach((r, i) => {
      const also = r.also_in.length > 0 ? `, also in ${r.also_in.join(', ')}` : '';
      lines.push(
        `${i + 1}. ${r.slug}${r.version ? ` v${r.version}` : ''} ` +
          `(score ${r.score.toFixed(3)}, registry ${r.registry}${also})`,
      );
      if (r.display_name && r.display_name !== r.slug) lines.push(`   Name: ${r.display_name}`);
      if (r.summary) lines.push(`   ${r.summary}`);
    });
  }
  for (const failure of outcome.failures)
    lines.push('', `Registry ${failure.registry} did not answer: ${failure.error}`);
  if (outcome.results.length > 0) lines.push('', 'Use install_skill with the slug (and its registry) to install one.');
  return lines.join('\n');
}

/** The peer runtime's `find_skills`: searches every enabled registry. */
export function findSkillsTool(finder: () => Promise<SkillFinder>): Tool<z.infer<typeof parameters>> {
  return {
    name: 'find_skills',
    description:
      'Search skill registries for installable skills. Returns slugs, ' +
      'descriptions, versions and relevance scores; install one with install_skill.',
    parameters,
    async execute({ query, limit }, context) {
      const outcome = await (await finder()).search(query, limit ?? 5, context.signal);
      return ok(describeOutcome(outcome));
    },
  };
}
