import type { Envelope } from '../../../bus/index.js';
import { getJson, sendJson, socketUrl } from '../api.js';
import {
  replyBubble,
  replyMeta,
  stepsOf,
  textStep,
  toolStep,
  transcriptGroups,
  turnGroup,
  userBubble,
} from '../components/conversation.js';
import { busy, h, replace } from '../dom.js';
import { onGateway, onLive } from '../live.js';
import { renderMarkdown } from '../markdown.js';
import { ago, plural, preview, stamp } from '../format.js';
import type { Conversation, GatewayStatus, Transcript } from '../../../bus/api-shapes.js';
import { onboardingForm } from './onboarding.js';
import type { Page } from './page.js';

type Choice = { label: string; reply: string };
type FrameMedia = { kind: string; name: string; bytes: number; url?: string };
type ServerFrame = {
  type: string;
  payload: {
    message_id?: string;
    content?: string;
    code?: string;
    message?: string;
    choices?: Choice[];
    media?: FrameMedia[];
  };
};

/** A file the agent sent (an image it drew): the image itself, or the file's name and size, and its caption. */
function mediaBubble(media: FrameMedia[], caption: string): HTMLElement {
  const items = media.map((m) =>
    m.url
      ? h('img', { src: m.url, alt: m.name, title: m.name })
      : h('p', { class: 'file' }, `${m.name} (${m.bytes} bytes)`),
  );
  return h('figure', { class: 'bubble media' }, ...items, ...(caption ? [h('figcaption', {}, caption)] : []));
}
type ToolUpdate = (result: { ok: boolean; content: string }) => void;

const SESSION_KEY = 'tern.chat.session';

function freshSession(): string {
  const id = `web${Math.random().toString(36).slice(2, 12)}`;
  localStorage.setItem(SESSION_KEY, id);
  return id;
}

/**
 * The conversation to open: the one the link names, else the latest web conversation the server knows (so a phone
 * opens what was started on a laptop), else this browser's own, else a new one.
 */
function pickSession(param: string | undefined, list: Conversation[] | undefined): string {
  const id = param ?? list?.[0]?.session_id ?? localStorage.getItem(SESSION_KEY) ?? freshSession();
  localStorage.setItem(SESSION_KEY, id);
  return id;
}

/** What to try in an empty chat: each fills the message box. */
const SUGGESTIONS = [
  'What can you do?',
  'List the files in your workspace',
  'Remind me in 10 minutes to stretch',
  'Summarise https://example.com',
];

function emptyHint(pick: (text: string) => void): HTMLElement {
  return h(
    'div',
    { class: 'chat-empty', id: 'chat-empty' },
    h('p', {}, 'Ask the agent anything. Some things to try:'),
    h(
      'ul',
      { class: 'suggestions' },
      ...SUGGESTIONS.map((text) =>
        h('li', {}, h('button', { type: 'button', class: 'secondary suggestion', onclick: () => pick(text) }, text)),
      ),
    ),
  );
}

/** The web conversations, latest first; the open one is marked. */
function conversationList(list: Conversation[], current: string): HTMLElement {
  return h(
    'details',
    { class: 'conversations', id: 'chat-conversations' },
    h('summary', {}, plural(list.length, 'conversation')),
    h(
      'ul',
      {},
      ...list.map((c) =>
        h(
          'li',
          { class: c.session_id === current ? 'current' : '', 'data-session-id': c.session_id },
          h('a', { href: `#/chat/${c.session_id}` }, preview(c.last_text, 60) || 'empty'),
          h('span', { class: 'muted', title: stamp(c.last_at) }, ` ${ago(c.last_at)} · ${plural(c.turns, 'turn')}`),
        ),
      ),
    ),
  );
}

/** An exchange still waiting for its turn, steps or reply. */
type Open = {
  node: HTMLElement;
  text?: string;
  turn?: string;
  steps?: HTMLElement;
  reply?: HTMLElement;
  outcome?: string;
  at?: number;
};

/**
 * What the chat can do now: the gateway stopped (with why, and a start button), starting or stopping, no
 * model configured (the first-run form), or nothing to say.
 */
function banner(status: GatewayStatus, models: number | undefined, start: () => void): HTMLElement | null {
  if (status.state === 'stopped') {
    return h(
      'section',
      { class: 'banner warn', id: 'banner-stopped' },
      h(
        'div',
        {},
        h('strong', {}, 'The gateway is stopped.'),
        ' Messages are not answered until it runs.',
        status.failure ? h('div', { class: 'error' }, `It failed to start: ${status.failure}`) : null,
      ),
      h('button', { type: 'button', id: 'banner-start', onclick: start }, 'Start the gateway'),
    );
  }
  if (status.state === 'starting' || status.state === 'stopping') {
    return h(
      'section',
      { class: 'banner info', id: 'banner-busy' },
      h('span', { class: 'spinner', 'aria-hidden': 'true' }),
      `The gateway is ${status.state}…`,
    );
  }
  if (models === 0) return h('section', { class: 'banner setup', id: 'banner-setup' }, onboardingForm());
  return null;
}

/**
 * Chat with the default agent over `/pico/ws`. The conversation is loaded from the log on open and on every
 * reconnect (the same history the model is given), then followed live: each turn's steps from `/api/live`,
 * the reply streamed over the chat socket, and a link from each reply to its turn.
 */
export const chatPage: Page = (root, param) => {
  let session = '';
  const log = h('div', { id: 'chat-log', class: 'chat-log', 'aria-live': 'polite' });
  const typing = h(
    'p',
    { id: 'typing', class: 'typing', hidden: true },
    h('span', { class: 'dots', 'aria-hidden': 'true' }, h('i'), h('i'), h('i')),
    'thinking',
  );
  const input = h('textarea', {
    id: 'chat-input',
    rows: 2,
    placeholder: 'Message the agent (Enter sends, Shift+Enter for a new line)',
  });
  const bannerSlot = h('div', { id: 'chat-banner', 'aria-busy': 'true' });
  const open: Open[] = [];
  const tools = new Map<string, ToolUpdate>();
  const replies = new Map<string, HTMLElement>();
  let stopped = false;
  let socket: WebSocket | undefined;
  let loaded = false;
  /** Messages typed before the conversation is chosen and its history loaded. */
  const pending: string[] = [];
  // A pressed choice (Approve/Deny) is answered by a chat command; its answer belongs under that question.
  let answerOfChoice: HTMLElement | undefined;

  const scroll = (): void => {
    log.scrollTop = log.scrollHeight;
  };
  const hint = (): HTMLElement =>
    emptyHint((text) => {
      input.value = text;
      input.focus();
    });
  const addGroup = (turn?: string): Open => {
    log.querySelector('#chat-empty')?.remove();
    const entry: Open = { node: turnGroup(turn), ...(turn ? { turn } : {}) };
    log.append(entry.node);
    open.push(entry);
    return entry;
  };
  const stepsFor = (entry: Open): HTMLElement => {
    if (!entry.steps) {
      entry.steps = stepsOf([]);
      entry.node.insertBefore(entry.steps, entry.reply ?? null);
    }
    return entry.steps;
  };
  const close = (entry: Open | undefined): void => {
    if (entry) open.splice(open.indexOf(entry), 1);
  };
  /**
   * A live reply is busy until it is whole (the chat socket's `typing.stop` follows its last update) and its turn has
   * ended (the time and the outcome under it come with that, over the other socket, in either order).
   */
  const settle = (reply: HTMLElement, done: 'written' | 'ended'): void => {
    reply.dataset[done] = '';
    busy(reply, !('written' in reply.dataset && 'ended' in reply.dataset));
  };

  const loadHistory = async (): Promise<void> => {
    const reply = await getJson<Transcript>(`/api/chat/history?session_id=${encodeURIComponent(session)}`);
    if (!reply.ok) return;
    tools.clear();
    open.length = 0;
    const groups = transcriptGroups(reply.body, (callId, update) => tools.set(callId, update));
    replace(log, ...groups);
    if (groups.length === 0 && open.length === 0) log.append(hint());
    // A turn still running when the page opened goes on filling its exchange.
    const last = reply.body.messages.at(-1);
    const lastGroup = groups.at(-1);
    if (last?.message.role === 'user' && lastGroup) {
      open.push({
        node: lastGroup,
        text: last.message.content,
        ...(last.turn ? { turn: last.turn } : {}),
        ...(lastGroup.querySelector('.steps')
          ? { steps: lastGroup.querySelector<HTMLElement>('.steps') ?? undefined }
          : {}),
      });
    }
    scroll();
  };

  const question = (content: string, choices: Choice[]): HTMLElement => {
    const buttons = choices.map((choice, i) =>
      h(
        'button',
        {
          type: 'button',
          class: i === 0 ? 'choice' : 'choice secondary',
          onclick: () => {
            for (const button of buttons) button.disabled = true;
            buttons[i]!.classList.add('chosen');
            answerOfChoice = node;
            send(choice.reply);
          },
        },
        choice.label,
      ),
    );
    const node = h(
      'div',
      { class: 'bubble question' },
      h('div', { class: 'body' }, renderMarkdown(content)),
      h('div', { class: 'choices' }, ...buttons),
    );
    return node;
  };

  const show = (frame: ServerFrame): void => {
    const id = frame.payload.message_id ?? '';
    if (frame.type === 'message.create' && frame.payload.choices?.length) {
      // A question (an approval) while the turn waits: it is a step of that turn, not its reply.
      const entry = open.find((o) => o.turn && !o.reply) ?? open.find((o) => !o.reply);
      const node = question(frame.payload.content ?? '', frame.payload.choices);
      if (entry) stepsFor(entry).append(node);
      else log.append(node);
      scroll();
    } else if (frame.type === 'message.create' && frame.payload.media?.length) {
      // A file sent during a turn (image_generate, send_file) shows in its exchange, before the reply.
      const entry = open.find((o) => o.turn && !o.reply) ?? open.find((o) => !o.reply);
      const node = mediaBubble(frame.payload.media, frame.payload.content ?? '');
      if (entry) entry.node.append(node);
      else log.append(node);
      scroll();
    } else if (frame.type === 'message.create' && answerOfChoice) {
      answerOfChoice.append(h('p', { class: 'choice-answer' }, frame.payload.content ?? ''));
      answerOfChoice = undefined;
      scroll();
    } else if (frame.type === 'message.create') {
      const entry = open.find((o) => !o.reply) ?? addGroup();
      entry.reply = replyBubble(frame.payload.content ?? '', entry.turn, entry.at, entry.outcome);
      entry.reply.dataset.messageId = id;
      busy(entry.reply, true);
      if (entry.outcome) settle(entry.reply, 'ended');
      entry.node.append(entry.reply);
      replies.set(id, entry.reply);
      scroll();
    } else if (frame.type === 'message.update') {
      const body = replies.get(id)?.querySelector('.body');
      if (body) replace(body, renderMarkdown(frame.payload.content ?? ''));
      scroll();
    } else if (frame.type === 'typing.start') typing.hidden = false;
    else if (frame.type === 'typing.stop') {
      typing.hidden = true;
      for (const reply of replies.values()) if (!('written' in reply.dataset)) settle(reply, 'written');
      // A chat command's answer has no turn: its exchange ends with the typing.
      const answer = open.find((o) => o.reply && !o.turn);
      if (answer?.reply) settle(answer.reply, 'ended');
      close(answer);
    } else if (frame.type === 'error') {
      log.append(
        h('div', { class: 'bubble error' }, `${frame.payload.message ?? 'error'} (${frame.payload.code ?? ''})`),
      );
      close(open.find((o) => !o.reply));
      scroll();
    }
  };

  const connect = (): void => {
    const current = new WebSocket(socketUrl('/pico/ws'));
    socket = current;
    current.addEventListener('open', () => {
      // Joins the session, so the reply of a turn that is still running reaches this page too.
      current.send(JSON.stringify({ type: 'ping', session_id: session, payload: {} }));
      void loadHistory().then(() => {
        loaded = true;
        for (const content of pending.splice(0)) post(content);
      });
    });
    current.addEventListener('message', (message) => show(JSON.parse(String(message.data)) as ServerFrame));
    current.addEventListener('close', () => {
      if (!stopped && socket === current) setTimeout(connect, 1000);
    });
  };

  const onEvent = (event: Envelope): void => {
    if (event.type === 'turn.started') {
      if (event.data.channel === 'pico') void listConversations();
      if (event.data.channel !== 'pico' || event.data.chat !== `direct:${session}` || !event.turn) return;
      const waiting = open.filter((o) => !o.turn && o.text !== undefined);
      let entry = waiting.find((o) => o.text === event.data.text) ?? waiting[0];
      if (!entry) {
        // Typed in another tab of the same conversation.
        entry = addGroup(event.turn);
        entry.node.append(userBubble(event.data.text, event.at));
      } else {
        // The message's time is when its turn started, as the history shows it after a reload: not this page's clock.
        entry.node.querySelector('.bubble.user')?.replaceWith(userBubble(event.data.text, event.at));
      }
      entry.turn = event.turn;
      entry.node.dataset.turn = event.turn;
      return;
    }
    const entry = event.turn ? open.find((o) => o.turn === event.turn) : undefined;
    if (!entry) return;
    if (event.type === 'provider.responded' && event.data.tool_calls.length > 0 && event.data.text.trim() !== '')
      stepsFor(entry).append(textStep(event.data.text));
    else if (event.type === 'tool.requested') {
      const step = toolStep({
        kind: 'tool',
        call_id: event.data.call_id,
        name: event.data.name,
        arguments: JSON.stringify(event.data.arguments),
      });
      tools.set(event.data.call_id, step.update);
      stepsFor(entry).append(step.node);
    } else if (event.type === 'tool.completed')
      tools.get(event.data.call_id)?.({ ok: event.data.ok, content: event.data.content });
    else if (event.type === 'turn.completed' || event.type === 'turn.failed' || event.type === 'turn.stopped') {
      entry.outcome = event.type.slice('turn.'.length);
      entry.at = event.at;
      entry.reply?.querySelector('.meta')?.replaceWith(replyMeta(entry.turn, event.at, entry.outcome));
      if (entry.outcome !== 'completed') entry.reply?.classList.add('failed');
      if (entry.reply) settle(entry.reply, 'ended');
      if (entry.reply) close(entry);
    } else return;
    scroll();
  };

  function send(content: string): void {
    const frame = JSON.stringify({
      type: 'message.send',
      session_id: session,
      timestamp: Date.now(),
      payload: { content },
    });
    // A message typed before the socket is open goes out as soon as it opens.
    if (socket?.readyState === WebSocket.OPEN) socket.send(frame);
    else socket?.addEventListener('open', () => socket?.send(frame), { once: true });
  }

  const post = (content: string): void => {
    const entry = addGroup();
    entry.text = content;
    entry.node.append(userBubble(content, Date.now()));
    scroll();
    send(content);
  };
  const sendMessage = (): void => {
    const content = input.value.trim();
    if (!content) return;
    input.value = '';
    // Typed before the conversation was chosen and loaded: it is shown and sent once it is.
    if (loaded) post(content);
    else pending.push(content);
  };
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      sendMessage();
    }
  });

  let status: GatewayStatus | undefined;
  let models: number | undefined;
  const drawBanner = (): void => {
    // Busy until the gateway's state is known and, while it runs, how many models it has: an empty banner before
    // then says nothing yet.
    busy(bannerSlot, status === undefined || (status.state === 'running' && models === undefined));
    if (status)
      replace(
        bannerSlot,
        banner(status, models, () => void sendJson('POST', '/api/gateway/start')),
      );
  };
  const stopGateway = onGateway((next) => {
    status = next;
    models = undefined;
    drawBanner();
    if (next.state === 'running') {
      void getJson<{ models: unknown[] }>('/api/models').then((reply) => {
        if (!reply.ok || status !== next) return;
        models = reply.body.models.length;
        drawBanner();
      });
    }
  });
  const stopLive = onLive(onEvent);
  const newChat = (): void => {
    session = freshSession();
    const old = socket;
    socket = undefined;
    old?.close();
    replace(log, hint());
    open.length = 0;
    if (window.location.hash !== '#/chat') history.replaceState(null, '', '#/chat');
    // The page drawn is the one of the new address (main.ts: the router's marker).
    root.dataset.route = window.location.hash;
    connect();
  };
  const listSlot = h('div', { class: 'conversation-slot' });
  const listConversations = async (): Promise<Conversation[] | undefined> => {
    const reply = await getJson<{ conversations: Conversation[] }>('/api/chat/conversations');
    if (!reply.ok) return undefined;
    if (!stopped) replace(listSlot, conversationList(reply.body.conversations, session));
    return reply.body.conversations;
  };
  const form = h(
    'form',
    {
      class: 'chat-form',
      onsubmit: (event) => {
        event.preventDefault();
        sendMessage();
      },
    },
    input,
    h('button', { type: 'submit', id: 'chat-send' }, 'Send'),
  );
  replace(
    root,
    h(
      'div',
      { class: 'chat-page' },
      h(
        'div',
        { class: 'page-head' },
        h('h1', {}, 'Chat'),
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            id: 'chat-new',
            title: 'start a new conversation (the old one stays under Sessions)',
            onclick: newChat,
          },
          'New chat',
        ),
      ),
      listSlot,
      bannerSlot,
      log,
      typing,
      form,
    ),
  );
  void listConversations().then((list) => {
    session = pickSession(param, list);
    if (list) replace(listSlot, conversationList(list, session));
    if (!stopped) connect();
  });
  return () => {
    stopped = true;
    stopLive();
    stopGateway();
    socket?.close();
  };
};
