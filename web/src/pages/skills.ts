import { errorText, getJson, sendJson, type ApiErrorBody, type ApiReply } from '../api.js';
import { busy, h, replace } from '../dom.js';
import { stamp } from '../format.js';
import type { Page } from './page.js';

type Installed = {
  name: string;
  description: string;
  root: string;
  folder: string;
  shadowed: boolean;
  origin?: { registry: string; slug: string; installed_version: string };
};
type Result = {
  slug: string;
  display_name: string;
  summary: string;
  version: string;
  registry: string;
  score: number;
  also_in: string[];
};
type Outcome = {
  query: string;
  results: Result[];
  failures: Array<{ registry: string; error: string }>;
  cached: boolean;
};
type Draft = {
  id: string;
  name: string;
  description: string;
  shape: string;
  status: string;
  records: number;
  success_ratio: number;
  drafted_at: number;
  content: string;
  applied_path?: string;
  backup?: string;
  apply_error?: string;
};
type Installation = {
  action: string;
  name: string;
  version: string;
  registry: string;
  path: string;
  previous_version?: string;
  warnings: string[];
};

const source = (s: Installed): string =>
  s.origin
    ? `${s.origin.registry}/${s.origin.slug}@${s.origin.installed_version}`
    : s.root === 'builtin'
      ? 'built-in'
      : 'local';

/** Where a skill was found, as a person says it. */
const ROOTS: Record<string, string> = { builtin: 'built-in' };

function table(header: string[], rows: HTMLElement[], empty: string): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'muted' }, empty);
  return h(
    'div',
    { class: 'table-wrap' },
    h('table', {}, h('thead', {}, h('tr', {}, ...header.map((c) => h('th', {}, c)))), h('tbody', {}, ...rows)),
  );
}

/** Installed skills with their provenance, registry search and installs, and evolution's drafts to accept or reject. */
export const skillsPage: Page = (root) => {
  const message = h('p', { id: 'skills-message', role: 'status' });
  const installed = h('div', { id: 'skills-installed', 'aria-busy': 'true' }, 'Loading…');
  const results = h('div', { id: 'skills-results' });
  const drafts = h('div', { id: 'skills-drafts', 'aria-busy': 'true' }, 'Loading…');
  const query = h('input', { id: 'skills-query', type: 'search', placeholder: 'what should the skill do?' });
  const say = (text: string, kind: 'ok' | 'error' = 'ok', ...extra: HTMLElement[]) =>
    replace(message, h('span', { class: kind === 'error' ? 'error' : '' }, text), ...extra);
  const failed = (reply: ApiReply<ApiErrorBody>) => say(errorText(reply.body, reply.status), 'error');

  /** Installed skills' names and registry slugs: a search result among them is not offered for install. */
  let have = new Set<string>();
  /** Built-in skills' names: a registry skill of the same name takes their place once installed. */
  let builtins = new Set<string>();
  const loadInstalled = async (): Promise<void> => {
    const reply = await getJson<{ skills: Installed[] }>('/api/skills');
    busy(installed, false);
    if (!reply.ok) return replace(installed, errorText(reply.body, reply.status));
    const mine = reply.body.skills.filter((s) => s.root !== 'builtin');
    have = new Set(mine.flatMap((s) => [s.name, s.folder, ...(s.origin ? [s.origin.slug] : [])]));
    builtins = new Set(reply.body.skills.filter((s) => s.root === 'builtin').map((s) => s.name));
    const rows = reply.body.skills.map((s) =>
      h(
        'tr',
        { 'data-skill': s.folder, 'data-root': s.root },
        h('td', {}, s.name),
        h('td', {}, ROOTS[s.root] ?? s.root),
        h('td', {}, source(s)),
        h('td', {}, `${s.shadowed ? '(hidden by an earlier root) ' : ''}${s.description}`),
        h(
          'td',
          {},
          s.root === 'builtin'
            ? ''
            : h('button', { type: 'button', class: 'skill-remove', onclick: () => void remove(s) }, 'Remove'),
        ),
      ),
    );
    replace(installed, table(['Name', 'Root', 'Source', 'Description', ''], rows, 'no skills installed'));
  };

  const remove = async (skill: Installed): Promise<void> => {
    const reply = await sendJson<{ name: string }>('POST', '/api/skills/remove', {
      name: skill.folder,
      global: skill.root === 'global',
    });
    if (!reply.ok) return failed(reply);
    say(`Removed ${skill.name}.`);
    await loadInstalled();
  };

  const install = async (result: Result, force = false): Promise<void> => {
    say(`Installing ${result.slug}…`);
    const reply = await sendJson<Installation>('POST', '/api/skills/install', {
      ref: result.slug,
      registry: result.registry,
      ...(force ? { force: true } : {}),
    });
    if (!reply.ok) {
      const anyway =
        reply.body.error?.code === 'suspicious'
          ? h(
              'button',
              { type: 'button', id: 'skills-install-anyway', onclick: () => void install(result, true) },
              'Install anyway',
            )
          : undefined;
      return say(errorText(reply.body, reply.status), 'error', ...(anyway ? [anyway] : []));
    }
    const done = reply.body;
    const verb =
      done.action === 'upgraded'
        ? `Upgraded ${done.name} from ${done.previous_version} to ${done.version}`
        : done.action === 'unchanged'
          ? `${done.name} ${done.version} is already installed`
          : `Installed ${done.name} ${done.version}`;
    say([`${verb} (${done.registry}, ${done.path}).`, ...done.warnings].join(' '));
    await loadInstalled();
  };

  const search = async (): Promise<void> => {
    const q = query.value.trim();
    if (!q) return;
    replace(results, 'Searching…');
    const reply = await getJson<Outcome>(`/api/skills/search?q=${encodeURIComponent(q)}`);
    if (!reply.ok) return replace(results, h('span', { class: 'error' }, errorText(reply.body, reply.status)));
    const rows = reply.body.results.map((r) =>
      h(
        'tr',
        { 'data-slug': r.slug },
        h('td', {}, r.slug),
        h('td', {}, r.version || '-'),
        h('td', {}, [r.registry, ...r.also_in].join(', ')),
        h('td', {}, r.score.toFixed(3)),
        h('td', {}, r.summary),
        h(
          'td',
          {},
          have.has(r.slug)
            ? h('span', { class: 'muted skill-installed' }, 'Installed')
            : h(
                'button',
                { type: 'button', class: 'skill-install', onclick: () => void install(r) },
                builtins.has(r.slug) ? 'Install over built-in' : 'Install',
              ),
        ),
      ),
    );
    const failures = reply.body.failures.map((f) => h('li', { class: 'error' }, `${f.registry}: ${f.error}`));
    replace(
      results,
      table(['Slug', 'Version', 'Registry', 'Score', 'Summary', ''], rows, `no skills found for "${reply.body.query}"`),
      failures.length > 0 ? h('ul', { id: 'skills-failures' }, ...failures) : null,
    );
  };

  const decide = async (draft: Draft, decision: 'accept' | 'reject'): Promise<void> => {
    const reply = await sendJson<{ status: string; path?: string; backup?: string }>(
      'POST',
      `/api/skills/drafts/${encodeURIComponent(draft.id)}/${decision}`,
    );
    if (!reply.ok) return failed(reply);
    const { status, path, backup } = reply.body;
    say(
      `Draft ${draft.name} ${status}${path ? `: written to ${path}` : ''}` +
        `${backup ? `; the skill it replaced is kept in ${backup}` : ''}.`,
    );
    await Promise.all([loadDrafts(), loadInstalled()]);
  };

  const loadDrafts = async (): Promise<void> => {
    const reply = await getJson<{ drafts: Draft[] }>('/api/skills/drafts');
    busy(drafts, false);
    if (!reply.ok) return replace(drafts, errorText(reply.body, reply.status));
    const rows = reply.body.drafts.map((d) =>
      h(
        'tr',
        { 'data-draft': d.id, 'data-status': d.status },
        h('td', {}, d.name),
        h('td', { class: 'draft-status' }, d.apply_error ? `${d.status} (not written: ${d.apply_error})` : d.status),
        h('td', {}, `${d.shape} (${d.records} tasks, ${Math.round(d.success_ratio * 100)}% succeeded)`),
        h('td', {}, stamp(d.drafted_at)),
        h('td', {}, h('details', {}, h('summary', {}, d.description), h('pre', { class: 'draft-content' }, d.content))),
        h(
          'td',
          {},
          ...(d.status === 'pending'
            ? [
                h(
                  'button',
                  { type: 'button', class: 'draft-accept', onclick: () => void decide(d, 'accept') },
                  'Accept',
                ),
                h(
                  'button',
                  { type: 'button', class: 'draft-reject', onclick: () => void decide(d, 'reject') },
                  'Reject',
                ),
              ]
            : []),
        ),
      ),
    );
    replace(
      drafts,
      table(
        ['Name', 'Status', 'Learned from', 'Drafted', 'Skill', ''],
        rows,
        'no drafts (evolution drafts skills when evolution.enabled is on in mode draft or apply)',
      ),
    );
  };

  const form = h(
    'form',
    {
      id: 'skills-search-form',
      onsubmit: (event) => {
        event.preventDefault();
        void search();
      },
    },
    query,
    h('button', { type: 'submit', id: 'skills-search' }, 'Search'),
  );
  replace(
    root,
    h('div', { class: 'page-head' }, h('h1', {}, 'Skills')),
    message,
    h('section', { class: 'card' }, h('h2', {}, 'Installed'), installed),
    h('section', { class: 'card' }, h('h2', {}, 'Find in registries'), form, results),
    h('section', { class: 'card' }, h('h2', {}, 'Drafts from evolution'), drafts),
  );
  void loadInstalled();
  void loadDrafts();
  return () => {};
};
