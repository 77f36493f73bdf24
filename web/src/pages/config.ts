import { errorText, getJson, sendJson } from '../api.js';
import { h, replace } from '../dom.js';
import type { Page } from './page.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Leaf = { path: string[]; value: string | number | boolean };

function leaves(value: Json, path: string[] = []): Leaf[] {
  if (value === null) return [];
  if (typeof value !== 'object') return [{ path, value }];
  return Object.entries(value).flatMap(([key, child]) => leaves(child, [...path, key]));
}

function setAt(root: Json, path: string[], value: Json): void {
  let node = root;
  for (const step of path.slice(0, -1)) {
    if (node === null || typeof node !== 'object') return;
    node = Array.isArray(node) ? (node[Number(step)] ?? null) : (node[step] ?? null);
  }
  const last = path[path.length - 1] ?? '';
  if (Array.isArray(node)) node[Number(last)] = value;
  else if (node !== null && typeof node === 'object') node[last] = value;
}

/** The config file as a form of its values and as raw JSON, saved through validation; secrets arrive masked. */
export const configPage: Page = (root) => {
  const raw = h('textarea', { id: 'config-raw', rows: 20, spellcheck: 'false' });
  const form = h('div', { id: 'config-form', class: 'config-form' });
  const issues = h('div', { id: 'config-issues' });
  let current: Json = {};

  const drawForm = (): void =>
    replace(
      form,
      ...leaves(current).map((leaf) => {
        const name = leaf.path.join('.');
        const onchange = (event: Event): void => {
          const input = event.target as HTMLInputElement;
          const value =
            typeof leaf.value === 'boolean'
              ? input.checked
              : typeof leaf.value === 'number'
                ? Number(input.value)
                : input.value;
          setAt(current, leaf.path, value);
          raw.value = JSON.stringify(current, null, 2);
        };
        const input =
          typeof leaf.value === 'boolean'
            ? h('input', { type: 'checkbox', name, checked: leaf.value, onchange })
            : h('input', {
                type: typeof leaf.value === 'number' ? 'number' : 'text',
                name,
                value: leaf.value,
                onchange,
              });
        return h('label', {}, h('span', {}, name), input);
      }),
    );
  const show = (config: Json): void => {
    current = config;
    raw.value = JSON.stringify(config, null, 2);
    drawForm();
  };
  raw.addEventListener('change', () => {
    try {
      current = JSON.parse(raw.value) as Json;
      drawForm();
    } catch {
      replace(issues, h('p', { class: 'error' }, 'the raw JSON is not valid JSON'));
    }
  });
  const save = async (): Promise<void> => {
    let config: Json;
    try {
      config = JSON.parse(raw.value) as Json;
    } catch {
      return replace(issues, h('p', { class: 'error' }, 'the raw JSON is not valid JSON'));
    }
    const reply = await sendJson<{ config: Json; warnings: string[] }>('PUT', '/api/config', { config });
    if (!reply.ok) {
      return replace(
        issues,
        h('p', { class: 'error' }, errorText(reply.body, reply.status)),
        h('ul', { class: 'issues' }, ...(reply.body.issues ?? []).map((issue) => h('li', {}, issue))),
      );
    }
    show(reply.body.config);
    replace(
      issues,
      h('p', { class: 'ok' }, 'saved'),
      ...(reply.body.warnings ?? []).map((w) => h('p', { class: 'muted' }, w)),
    );
  };
  void getJson<{ path: string; config: Json }>('/api/config').then((reply) => {
    if (!reply.ok) return replace(issues, h('p', { class: 'error' }, errorText(reply.body, reply.status)));
    replace(path, reply.body.path);
    show(reply.body.config);
  });
  const path = h('p', { class: 'muted mono wrap small' });
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
      issues,
      h(
        'div',
        { class: 'columns' },
        h('section', { class: 'card' }, h('h2', {}, 'Form'), form),
        h('section', { class: 'card' }, h('h2', {}, 'Raw JSON'), raw),
      ),
    ),
  );
  return () => {};
};
