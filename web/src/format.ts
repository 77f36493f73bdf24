// How the dashboard writes names, times, sizes and ids for a person to read.

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** `calling_model` → `calling model`; `showing.message_updated` → `showing › message updated`. */
export function stateLabel(state: string): string {
  return state
    .split('.')
    .map((part) => part.replace(/_/g, ' '))
    .join(' › ');
}

/** `slotWait` → `slot wait`. */
const words = (name: string): string =>
  name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[._]/g, ' ')
    .toLowerCase();

/** A machine event as a person says it: `MODEL_ANSWERED` → `model answered`, `xstate.init` → `start`. */
export function eventLabel(event: string): string {
  if (event === 'xstate.init') return 'start';
  if (event === 'always') return 'at once';
  const after = /^xstate\.after\.(\d+)\./.exec(event);
  if (after) return `after ${duration(Number(after[1]))}`;
  // A named delay (`xstate.after.slotWait.subagent.waiting`): its name in words.
  const named = /^xstate\.after\.([a-zA-Z]\w*)\./.exec(event);
  if (named) return `after ${words(named[1] ?? '')}`;
  const failed = /^xstate\.error\.actor\.(.+)$/.exec(event);
  if (failed) return `${words(failed[1] ?? '')} failed`;
  const done = /^xstate\.done\.(?:actor|state)\.(.+)$/.exec(event);
  if (done) return `${(done[1] ?? '').replace(/[._]/g, ' ')} done`;
  return event.toLowerCase().replace(/[_.]/g, ' ');
}

export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** Local wall-clock time, `14:02:21`. */
export function clock(at: number): string {
  const d = new Date(at);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** Local date and time to the millisecond, for titles and the event log. */
export function stamp(at: number): string {
  const d = new Date(at);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${clock(at)}.${pad(d.getMilliseconds(), 3)}`;
}

export function ago(at: number, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  if (seconds < 5) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return stamp(at).slice(0, 10);
}

export function count(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function plural(n: number, word: string): string {
  return `${count(n)} ${word}${n === 1 ? '' : 's'}`;
}

/** Long ids keep their head and tail: `sk_v1_9df7a1…346b9d`. */
export function shortId(id: string): string {
  const session = /^(sk_v1_)([0-9a-f]{64})$/.exec(id);
  if (session) return `${session[1]}${session[2]?.slice(0, 6)}…${session[2]?.slice(-6)}`;
  return id.length > 24 ? `${id.slice(0, 12)}…${id.slice(-6)}` : id;
}

export type SessionParts = {
  agent?: string;
  channel?: string;
  account?: string;
  chat?: string;
  sender?: string;
  space?: string;
  topic?: string;
};

/** The readable session key `v=1|agent=main|channel=pico|account=web|chat=direct:x` as its parts. */
export function sessionParts(key: string): SessionParts {
  const parts: Record<string, string> = {};
  for (const pair of key.split('|')) {
    const at = pair.indexOf('=');
    if (at > 0) parts[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return parts;
}

const CHANNEL_NAMES: Record<string, string> = { pico: 'web chat', cli: 'terminal', system: 'system' };

/** A channel kind as a person knows it: the dashboard's `pico` is the web chat. */
export const channelName = (kind: string): string => CHANNEL_NAMES[kind] ?? kind;

/** `direct:42` → `42`, `group:-100` → `group -100`: a direct chat is named by who it is with. */
export function chatName(chat: string): string {
  const colon = chat.indexOf(':');
  if (colon < 0) return chat;
  const kind = chat.slice(0, colon);
  return kind === 'direct' ? chat.slice(colon + 1) : `${kind} ${chat.slice(colon + 1)}`;
}

/** `web chat · web1a2b · from 42`: where a session talks, for a title. */
export function sessionTitle(parts: SessionParts): string {
  return (
    [
      parts.channel && channelName(parts.channel),
      parts.space,
      parts.chat && chatName(parts.chat),
      parts.topic && `topic ${parts.topic}`,
      parts.sender && `from ${parts.sender}`,
    ]
      .filter(Boolean)
      .join(' · ') || 'session'
  );
}

/** The first line of a text, cut to `max` characters. */
export function preview(text: string, max = 80): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A whole number with thousands separators, `12,345`: figures a person compares exactly. */
export const exact = (n: number): string => n.toLocaleString('en-US');

/**
 * US dollars as the prices are given: cents from $1 up, else four decimals (a single answer costs fractions of a
 * cent), and never a misleading `$0.0000` for a tiny amount.
 */
export function money(usd: number): string {
  if (usd === 0) return '$0.00';
  if (usd >= 1) return `$${usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  if (usd < 0.0001) return '<$0.0001';
  return `$${usd.toFixed(4)}`;
}

/**
 * A cost as far as it is known: `calls` answers of which `unpriced` were of models without a price add an unknown
 * amount, never $0.
 */
export function costText(calls: number, usd: number, unpriced: number): string {
  if (calls > 0 && unpriced === calls) return 'unknown';
  return unpriced > 0 ? `${money(usd)} + unknown` : money(usd);
}
