import { errorText, sendJson } from '../api.js';
import { h, replace } from '../dom.js';

const FIELDS: Array<[string, string, string]> = [
  ['model_name', 'Name you will use', 'fast'],
  ['provider', 'Family (provider)', 'openai'],
  ['model', 'Model id at the vendor', 'gpt-4o-mini'],
  ['api_base', 'Base URL', 'https://api.openai.com/v1'],
  ['api_key', 'API key', 'sk-…'],
];

type ModelTest = { ok: true; reply: string } | { ok: false; code: string; message: string };

/** First run: add a model and test it with one request. */
export function onboardingForm(): HTMLElement {
  const result = h('div', { id: 'onboard-result' });
  const inputs = FIELDS.map(([name, label, placeholder]) =>
    h(
      'label',
      {},
      h('span', {}, label),
      h('input', {
        name,
        id: `onboard-${name}`,
        placeholder,
        type: name === 'api_key' ? 'password' : 'text',
        autocomplete: 'off',
      }),
    ),
  );
  const submit = async (form: HTMLFormElement): Promise<void> => {
    const body = Object.fromEntries(
      Array.from(form.querySelectorAll('input')).map((input) => [input.name, input.value]),
    );
    replace(result, 'saving and testing…');
    const reply = await sendJson<{ test: ModelTest }>('POST', '/api/onboarding/model', body);
    if (!reply.ok) {
      return replace(
        result,
        h('p', { class: 'error' }, errorText(reply.body, reply.status)),
        h('ul', { class: 'issues' }, ...(reply.body.issues ?? []).map((issue) => h('li', {}, issue))),
      );
    }
    const test = reply.body.test;
    if (!test.ok)
      return replace(
        result,
        h('p', { class: 'error' }, `saved, but the test request failed: ${test.message} (${test.code})`),
      );
    replace(result, h('p', { class: 'ok' }, `the model answered: ${test.reply}`));
  };
  const form = h(
    'form',
    {
      id: 'onboard-form',
      class: 'config-form',
      onsubmit: (event) => {
        event.preventDefault();
        void submit(event.target as HTMLFormElement);
      },
    },
    ...inputs,
    h('button', { type: 'submit', id: 'onboard-save' }, 'Save and test'),
  );
  return h(
    'section',
    { class: 'onboarding' },
    h('h2', {}, 'Add your first model'),
    h('p', { class: 'muted' }, 'No model is configured yet. Add one to start chatting.'),
    form,
    result,
  );
}
