import type { PairingDecided, PairingReply } from '../../../bus/api-shapes.js';
import { errorText, getJson, sendJson } from '../api.js';
import { h, replace } from '../dom.js';
import { ago, stamp } from '../format.js';
import type { Page } from './page.js';

/** `1001 (@bob)`: the id approved, with the names people know the sender by. */
function who(sender: string, aliases: string[]): string {
  const others = aliases.filter((a) => a !== sender);
  return others.length ? `${sender} (${others.join(', ')})` : sender;
}

/** Strangers who wrote to a channel without `allow_from` wait here with a code: let them in or turn them away. */
export const pairingPage: Page = (root) => {
  const waiting = h('div', { id: 'pairing-requests', class: 'status-cards' });
  const approved = h('ul', { id: 'pairing-approved', class: 'tool-list' });
  const notice = h('div', { id: 'pairing-notice', 'aria-live': 'polite' });

  const decide = async (code: string, decision: 'approve' | 'deny'): Promise<void> => {
    const reply = await sendJson<PairingDecided>('POST', `/api/pairing/${encodeURIComponent(code)}/${decision}`);
    replace(
      notice,
      reply.ok
        ? h(
            'p',
            { class: 'ok' },
            `${reply.body.sender} on ${reply.body.channel} ` +
              `${decision === 'approve' ? 'may write now' : 'was turned away'}.`,
          )
        : h('p', { class: 'error' }, errorText(reply.body, reply.status)),
    );
    await load();
  };
  const load = async (): Promise<void> => {
    const reply = await getJson<PairingReply>('/api/pairing');
    if (!reply.ok) return replace(waiting, h('p', { class: 'error' }, errorText(reply.body, reply.status)));
    const { requests } = reply.body;
    replace(
      waiting,
      ...(requests.length
        ? requests.map((r) =>
            h(
              'article',
              { class: 'card status-card', 'data-code': r.code },
              h('div', { class: 'status-card-head' }, h('h3', {}, who(r.sender, r.aliases)), h('code', {}, r.code)),
              h(
                'dl',
                {},
                h('dt', {}, 'Channel'),
                h('dd', {}, r.channel),
                h('dt', {}, 'Chat'),
                h('dd', {}, r.chat),
                h('dt', {}, 'Expires'),
                h('dd', { title: stamp(Date.parse(r.expires_at)) }, `at ${r.expires_at.slice(11, 16)} UTC`),
              ),
              h(
                'div',
                { class: 'add-row' },
                h(
                  'button',
                  { type: 'button', class: 'approve', onclick: () => void decide(r.code, 'approve') },
                  'Approve',
                ),
                h(
                  'button',
                  { type: 'button', class: 'danger deny', onclick: () => void decide(r.code, 'deny') },
                  'Deny',
                ),
              ),
            ),
          )
        : [
            h(
              'p',
              { class: 'muted' },
              'No one waits. A stranger who writes to a channel without allow_from gets a code.',
            ),
          ]),
    );
    replace(
      approved,
      ...(reply.body.approved.length
        ? reply.body.approved.map((a) =>
            h(
              'li',
              {},
              h('strong', {}, who(a.sender, a.aliases)),
              ` on ${a.channel}, approved ${ago(Date.parse(a.approved_at))} from ${a.by}`,
            ),
          )
        : [h('li', { class: 'muted' }, 'No one yet.')]),
    );
  };
  void load();
  replace(
    root,
    h(
      'div',
      { class: 'pairing-page' },
      h('div', { class: 'page-head' }, h('h1', {}, 'Pairing')),
      notice,
      h('h2', {}, 'Waiting'),
      waiting,
      h('h2', {}, 'Let in'),
      h('section', { class: 'card' }, approved),
    ),
  );
  return () => {};
};
