// The config editor's Scheduled jobs: the workspace database `tern cron` uses, so edits apply at once, not on Save.
import type { StatusReply } from '../../../bus/api-shapes.js';
import { errorText, getJson, sendJson } from '../api.js';
import { busy, h, replace } from '../dom.js';

type CronRow = StatusReply['cron'][number];

const SCHEDULES = [
  ['every', 'every (90, 30s, 10m, 2h, 1d)'],
  ['at', 'once at (ISO time)'],
  ['cron', 'cron expression'],
] as const;
const TASKS = [
  ['message', 'an agent turn with this message'],
  ['deliver', 'this text, delivered as it is'],
  ['command', 'this chat command (/clear…)'],
] as const;

function field(label: string, input: HTMLElement, hint?: string): HTMLElement {
  input.id = input.getAttribute('name') ?? '';
  return h(
    'div',
    { class: 'field' },
    h('label', { for: input.id }, label),
    input,
    hint ? h('p', { class: 'hint' }, hint) : null,
  );
}

const text = (name: string, placeholder = '') =>
  h('input', { type: 'text', name: `cron-${name}`, placeholder, autocomplete: 'off' });
const picker = (name: string, options: ReadonlyArray<readonly [string, string]>) =>
  h('select', { name: `cron-${name}` }, ...options.map(([value, label]) => h('option', { value }, label)));

/** A card listing the jobs with a Remove button each, and a form that adds one as `tern cron add` would. */
export function cronJobsCard(): HTMLElement {
  // aria-busy tells screen readers (and tests) when the list holds jobs rather than the placeholder.
  const list = h(
    'div',
    { class: 'entries', id: 'cron-jobs', 'aria-busy': 'true' },
    h('p', { class: 'muted' }, 'Loading…'),
  );
  const problem = h('p', { class: 'field-error', role: 'alert', id: 'cron-problem', hidden: true });
  const inputs = {
    name: text('name', 'drink water'),
    schedule: picker('schedule', SCHEDULES),
    when: text('when', '1h'),
    tz: text('tz', 'UTC'),
    task: picker('task', TASKS),
    what: text('what'),
    channel: text('channel', 'telegram'),
    chat: text('chat', '123456'),
    agent: text('agent', 'main'),
  };
  const say = (message?: string): void => {
    problem.hidden = message === undefined;
    problem.textContent = message ?? '';
  };

  const load = async (): Promise<void> => {
    const reply = await getJson<{ cron: CronRow[] }>('/api/cron');
    busy(list, false);
    if (!reply.ok) return replace(list, h('p', { class: 'error' }, errorText(reply.body, reply.status)));
    const rows = reply.body.cron.map((job) =>
      h(
        'div',
        { class: 'entry', 'data-cron-id': job.id },
        h(
          'div',
          { class: 'entry-head' },
          h('h4', {}, job.name),
          h(
            'button',
            {
              type: 'button',
              class: 'danger small-button',
              'aria-label': `Remove job ${job.name}`,
              onclick: () => void remove(job.id),
            },
            'Remove',
          ),
        ),
        h('p', { class: 'muted small' }, `${job.id} · ${job.schedule} · ${job.kind}${job.enabled ? '' : ' · off'}`),
      ),
    );
    replace(list, ...(rows.length ? rows : [h('p', { class: 'muted' }, 'No scheduled jobs yet.')]));
  };
  const remove = async (id: string): Promise<void> => {
    const reply = await sendJson<unknown>('DELETE', `/api/cron/${encodeURIComponent(id)}`);
    say(reply.ok ? undefined : errorText(reply.body, reply.status));
    await load();
  };
  const add = async (): Promise<void> => {
    const optional = (name: string, value: string) => (value.trim() ? { [name]: value } : {});
    const body = {
      ...optional('name', inputs.name.value),
      [inputs.schedule.value]: inputs.when.value,
      ...optional('tz', inputs.tz.value),
      [inputs.task.value]: inputs.what.value,
      ...optional('channel', inputs.channel.value),
      ...optional('chat', inputs.chat.value),
      ...optional('agent', inputs.agent.value),
    };
    const reply = await sendJson<unknown>('POST', '/api/cron', body);
    if (!reply.ok) return say(reply.body.error?.message ?? errorText(reply.body, reply.status));
    say();
    for (const input of [inputs.name, inputs.when, inputs.tz, inputs.what]) input.value = '';
    await load();
  };
  void load();
  return h(
    'details',
    { class: 'block card', 'data-block': 'cron', open: true },
    h(
      'summary',
      {},
      h('h2', {}, 'Scheduled jobs'),
      h('p', { class: 'hint' }, 'Kept in the workspace, as `tern cron add` keeps them: a change applies at once.'),
    ),
    list,
    h(
      'div',
      { class: 'entry', id: 'cron-new' },
      h('h4', {}, 'New job'),
      field('Name', inputs.name, 'Optional: the start of the task by default'),
      field('Runs', inputs.schedule),
      field('When', inputs.when),
      field('Time zone', inputs.tz, 'Cron expressions only; UTC when empty'),
      field('Does', inputs.task),
      field('Text', inputs.what),
      field('Channel', inputs.channel, 'Where the result goes (with the chat); optional for commands'),
      field('Chat', inputs.chat),
      field('Agent', inputs.agent, 'Agent turns only; the default agent when empty'),
      problem,
      h('button', { type: 'button', id: 'cron-add', onclick: () => void add() }, 'Add job'),
    ),
  );
}
