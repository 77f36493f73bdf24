import type { Envelope } from '../../../bus/index.js';
import { getJson, socketUrl } from '../api.js';
import { h, replace } from '../dom.js';
import { onLive } from '../live.js';
import { renderMarkdown } from '../markdown.js';
import { onboardingForm } from './onboarding.js';
import type { Page } from './page.js';

type ServerFrame = { type: string; payload: { message_id?: string; content?: string; code?: string; message?: string } };

function sessionId(): string {
  const saved = localStorage.getItem('tern.chat.session');
  if (saved) return saved;
  const fresh = `web${Math.random().toString(36).slice(2, 12)}`;
  localStorage.setItem('tern.chat.session', fresh);
  return fresh;
}

/** Chat with the default agent over `/pico/ws`; tool calls of each turn fold under its reply. */
export const chatPage: Page = (root) => {
  const session = sessionId();
  const log = h('div', { id: 'chat-log', class: 'chat-log' });
  const typing = h('p', { id: 'typing', class: 'muted', hidden: true }, 'thinking…');
  const input = h('textarea', { id: 'chat-input', rows: 3, placeholder: 'Message the agent (Enter sends, Shift+Enter for a new line)' });
  const socket = new WebSocket(socketUrl('/pico/ws'));
  const bubbles = new Map<string, HTMLElement>();
  // Tool calls of the turn now running, folded under its reply (hidden until the first one).
  let tools = h('details', { class: 'tools', hidden: true });
  let turn: string | undefined;

  const add = (role: 'user' | 'assistant' | 'error', content: Node | string): HTMLElement => {
    const body = h('div', { class: 'body' }, content);
    const bubble = h('div', { class: `bubble ${role}` }, body);
    log.append(bubble);
    log.scrollTop = log.scrollHeight;
    return bubble;
  };
  const show = (frame: ServerFrame): void => {
    const id = frame.payload.message_id ?? '';
    if (frame.type === 'message.create') {
      const bubble = add('assistant', renderMarkdown(frame.payload.content ?? ''));
      bubble.dataset.messageId = id;
      bubble.append(tools);
      bubbles.set(id, bubble);
    } else if (frame.type === 'message.update') {
      const body = bubbles.get(id)?.querySelector('.body');
      if (body) replace(body, renderMarkdown(frame.payload.content ?? ''));
    } else if (frame.type === 'typing.start' || frame.type === 'typing.stop') typing.hidden = frame.type === 'typing.stop';
    else if (frame.type === 'error') add('error', `${frame.payload.message ?? 'error'} (${frame.payload.code ?? ''})`);
  };
  socket.addEventListener('message', (message) => show(JSON.parse(String(message.data)) as ServerFrame));

  const onEvent = (event: Envelope): void => {
    if (event.type === 'turn.started' && event.data.chat === `direct:${session}` && event.data.channel === 'pico') {
      tools = h('details', { class: 'tools', hidden: true }, h('summary', {}, 'tool calls'));
      turn = event.turn;
    } else if ((event.type === 'tool.requested' || event.type === 'tool.completed') && event.turn === turn) {
      tools.hidden = false;
      const text = event.type === 'tool.requested' ? `${event.data.name}(${JSON.stringify(event.data.arguments)})` : `→ ${event.data.ok ? '' : 'failed: '}${event.data.content.slice(0, 400)}`;
      tools.append(h('pre', {}, text));
    }
  };
  const stopLive = onLive(onEvent);

  const sendMessage = (): void => {
    const content = input.value.trim();
    if (!content) return;
    add('user', content);
    const frame = JSON.stringify({ type: 'message.send', session_id: session, timestamp: Date.now(), payload: { content } });
    // A message typed before the socket is open goes out as soon as it opens.
    if (socket.readyState === WebSocket.OPEN) socket.send(frame);
    else socket.addEventListener('open', () => socket.send(frame), { once: true });
    input.value = '';
  };
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      sendMessage();
    }
  });
  const form = h('form', { class: 'chat-form', onsubmit: (event) => (event.preventDefault(), sendMessage()) }, input, h('button', { type: 'submit', id: 'chat-send' }, 'Send'));
  const onboarding = h('div', { id: 'onboarding' });
  void getJson<{ models: unknown[] }>('/api/models').then((reply) => {
    if (reply.ok && reply.body.models.length === 0) replace(onboarding, onboardingForm());
  });
  replace(root, h('h1', {}, 'Chat'), onboarding, log, typing, form);
  return () => {
    stopLive();
    socket.close();
  };
};
