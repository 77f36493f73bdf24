import type { ConfigCheck, ConfigReply, ConfigSaved, ConfigSchemaReply, JsonSchema } from '../../../bus/api-shapes.js';
import { errorText, getJson, sendJson } from '../api.js';
import { cronJobsCard } from '../components/cron-jobs.js';
import { changesKind } from '../components/form-channel.js';
import type { FormContext } from '../components/form-field.js';
import { renderNode } from '../components/form-node.js';
import { kindOf, labelOf, resolved, type Json, type Path } from '../components/form-schema.js';
import { busy, h, replace } from '../dom.js';
import type { Page } from './page.js';

/** The blocks people edit most come first and open; the rest follow closed, in the schema's order. */
const FIRST = ['model_list', 'channel_list', 'agents', 'tools', 'gateway'];
const OPEN = new Set(['model_list', 'channel_list']);
const CHECK_DELAY_MS = 400;

function blocksOf(schema: JsonSchema): Array<[string, JsonSchema]> {
  const all = Object.entries(schema.properties ?? {}).filter(([key]) => key !== 'version');
  const rank = (key: string) => (FIRST.includes(key) ? FIRST.indexOf(key) : FIRST.length);
  return all.sort(([a], [b]) => rank(a) - rank(b));
}

/** `model_list.0.model: must not be empty…`: the field a problem is about, when it names one. */
function problemPath(problem: string): string | undefined {
  const at = problem.indexOf(': ');
  return at > 0 ? problem.slice(0, at) : undefined;
}

/** Each problem also under the deepest field of the form it names. */
function markProblems(form: HTMLElement, problems: string[]): void {
  form.querySelectorAll('.field-error').forEach((old) => old.remove());
  for (const problem of problems) {
    let path = problemPath(problem);
    while (path) {
      const target = form.querySelector(`[data-path="${CSS.escape(path)}"]`);
      if (target) {
        target.append(h('p', { class: 'field-error', role: 'alert' }, problem.slice(path.length + 2)));
        break;
      }
      path = path.includes('.') ? path.slice(0, path.lastIndexOf('.')) : undefined;
    }
  }
}

/**
 * The config as a form drawn from its schema (every field with its description, default and range; entries added
 * and removed; secrets write-only) and as raw JSON; checked while typing, saved with a backup.
 */
export const configPage: Page = (root) => {
  const raw = h('textarea', { id: 'config-raw', rows: 24, spellcheck: 'false', 'aria-label': 'Config as JSON' });
  const form = h(
    'form',
    { id: 'config-form', class: 'config-form', 'aria-busy': 'true', onsubmit: (event) => event.preventDefault() },
    h('p', { class: 'muted' }, 'Loading…'),
  );
  const issues = h('div', { id: 'config-issues', 'aria-live': 'polite' });
  const path = h('p', { class: 'muted mono small config-path' });
  let schema: ConfigSchemaReply | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let checks = 0;
  const context: FormContext = {
    value: {},
    changed: (at?: Path) => {
      raw.value = JSON.stringify(context.value, null, 2);
      if (at && changesKind(at)) context.redraw();
      clearTimeout(timer);
      timer = setTimeout(() => void check(), CHECK_DELAY_MS);
    },
    redraw: () => draw(),
    channelKinds: {},
  };

  const showProblems = (problems: string[], warnings: string[], title?: string): void => {
    replace(
      issues,
      title ? h('p', { class: 'error' }, title) : null,
      problems.length ? h('ul', { class: 'issues' }, ...problems.map((p) => h('li', {}, p))) : null,
      ...warnings.map((w) => h('p', { class: 'muted' }, w)),
    );
    markProblems(form, problems);
  };
  const check = async (): Promise<void> => {
    const mine = ++checks;
    const reply = await sendJson<ConfigCheck>('POST', '/api/config/check', { config: context.value });
    if (mine !== checks || !reply.ok) return;
    showProblems(reply.body.problems, reply.body.warnings);
  };
  const draw = (): void => {
    if (!schema) return;
    const open = new Set(Array.from(form.querySelectorAll('details[open]'), (d) => d.getAttribute('data-block')));
    const first = form.querySelector('details') === null;
    replace(
      form,
      ...blocksOf(schema.schema).map(([key, block]) => {
        const kind = kindOf(block);
        return h(
          'details',
          { class: 'block card', 'data-block': key, open: first ? OPEN.has(key) : open.has(key) },
          h('summary', {}, h('h2', {}, labelOf(key)), description(block)),
          kind === 'object' || kind === 'list' || kind === 'record'
            ? renderNode(context, block, [key])
            : renderNode(context, { type: 'object', properties: { [key]: block } }, []),
        );
      }),
    );
  };
  const show = (config: Json): void => {
    context.value = config;
    raw.value = JSON.stringify(config, null, 2);
    draw();
  };
  raw.addEventListener('change', () => {
    try {
      show(JSON.parse(raw.value) as Json);
      void check();
    } catch {
      replace(issues, h('p', { class: 'error' }, 'the raw JSON is not valid JSON'));
    }
  });
  const save = async (): Promise<void> => {
    clearTimeout(timer);
    checks++;
    const reply = await sendJson<ConfigSaved>('PUT', '/api/config', { config: context.value });
    if (!reply.ok) return showProblems(reply.body.issues ?? [], [], errorText(reply.body, reply.status));
    show(reply.body.config as Json);
    replace(
      issues,
      h('p', { class: 'ok', id: 'config-saved' }, 'Saved. A running gateway reloads it within a few seconds.'),
      reply.body.backup ? h('p', { class: 'muted small' }, `The previous file is kept as ${reply.body.backup}`) : null,
      ...reply.body.warnings.map((w) => h('p', { class: 'muted' }, w)),
    );
  };

  void Promise.all([getJson<ConfigSchemaReply>('/api/config/schema'), getJson<ConfigReply>('/api/config')]).then(
    ([schemaReply, configReply]) => {
      busy(form, false);
      if (!configReply.ok)
        return replace(issues, h('p', { class: 'error' }, errorText(configReply.body, configReply.status)));
      if (schemaReply.ok) {
        schema = schemaReply.body;
        context.channelKinds = schemaReply.body.channel_kinds;
      }
      replace(path, configReply.body.path);
      show(configReply.body.config as Json);
    },
  );

  const formTab = h('button', { type: 'button', id: 'config-tab-form', role: 'tab', 'aria-selected': 'true' }, 'Form');
  const rawTab = h(
    'button',
    { type: 'button', id: 'config-tab-raw', role: 'tab', 'aria-selected': 'false' },
    'Raw JSON',
  );
  const rawPanel = h(
    'section',
    { class: 'card raw-panel', hidden: true },
    h('p', { class: 'hint' }, 'The file as JSON, secrets masked: a mask left as it is keeps the saved secret.'),
    raw,
  );
  const jobs = cronJobsCard();
  const pick = (showRaw: boolean): void => {
    form.hidden = showRaw;
    jobs.hidden = showRaw;
    rawPanel.hidden = !showRaw;
    formTab.setAttribute('aria-selected', String(!showRaw));
    rawTab.setAttribute('aria-selected', String(showRaw));
  };
  formTab.addEventListener('click', () => pick(false));
  rawTab.addEventListener('click', () => pick(true));
  replace(
    root,
    h(
      'div',
      { class: 'config-page' },
      h(
        'div',
        { class: 'page-head' },
        h('h1', {}, 'Config'),
        h('button', { type: 'button', id: 'config-save', onclick: () => void save() }, 'Save'),
        path,
      ),
      h('div', { class: 'tabs', role: 'tablist' }, formTab, rawTab),
      issues,
      form,
      jobs,
      rawPanel,
    ),
  );
  return () => clearTimeout(timer);
};

function description(block: JsonSchema): HTMLElement | null {
  const text = resolved(block).description;
  return text ? h('p', { class: 'hint' }, text) : null;
}
