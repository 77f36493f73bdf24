import type { ChatMessage } from '../../bus/index.js';
import { promptJsonParts, type PromptJson } from './prompt-json.js';

/**
 * The `messages` array of a chat-completions body. A call's list mostly repeats a list sent before: a turn's
 * second call is its first call's list and two more messages, and the next turn's list is the same history,
 * maybe slid forward by a turn. So the JSON of the last list of each conversation is kept, and a new list
 * takes the run of messages it shares with that list (the same message objects, never changed once made) as
 * one slice and serializes only the rest: one lookup a call instead of one per message, and no `WeakMap`
 * write while the list keeps its first messages.
 */
interface EncodedList {
  system: string | undefined;
  systemJson: PromptJson | undefined;
  /** The list's own copy of its messages, to compare later lists with. */
  messages: ChatMessage[];
  /** Each message's JSON, comma-separated. */
  json: string;
  /** Where each message's JSON starts in `json`; one more entry, as if a message followed the last one. */
  starts: number[];
}

/** A list is found by any of its first messages, so a history that slid forward by a turn still finds it. */
const KEYS = 4;
const lists = new WeakMap<ChatMessage, EncodedList>();

/** A message as the chat-completions API takes it. */
export function wireMessage(message: ChatMessage): Record<string, unknown> {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'tool':
      return { role: 'tool', tool_call_id: message.tool_call_id, content: message.content };
    case 'assistant': {
      if (message.tool_calls.length === 0) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        content: message.content === '' ? null : message.content,
        tool_calls: message.tool_calls.map((call) => ({
          id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) },
        })),
      };
    }
  }
}

interface Found {
  list: EncodedList;
  at: number;
}

/** The earlier list holding `messages[0]` among its first messages, and where. */
function earlierList(messages: readonly ChatMessage[]): Found | undefined {
  const first = messages[0];
  const list = first === undefined ? undefined : lists.get(first);
  if (first === undefined || list === undefined) return undefined;
  const at = list.messages.indexOf(first);
  return at >= 0 ? { list, at } : undefined;
}

/** How many messages from `at` on the earlier list and the new one share. */
function sharedRun(list: EncodedList, at: number, messages: readonly ChatMessage[]): number {
  const limit = Math.min(list.messages.length - at, messages.length);
  let run = 0;
  while (run < limit && list.messages[at + run] === messages[run]) run++;
  return run;
}

/** Keeps only the `run` messages of `list` from `at` on (and their JSON), the first of them first. */
function slide(list: EncodedList, at: number, run: number): void {
  const from = list.starts[at]!;
  list.json = list.json.slice(from, list.starts[at + run]! - 1);
  list.starts = list.starts.slice(at, at + run + 1).map((start) => start - from);
  list.messages = list.messages.slice(at, at + run);
}

/** Makes `list` hold `messages`, whose first `run` it already holds, serializing only the others. */
function extend(list: EncodedList, messages: readonly ChatMessage[], run: number): void {
  const { starts } = list;
  let json = starts[run] === list.json.length + 1 ? list.json : list.json.slice(0, starts[run]! - 1);
  // Shortening an array goes through the runtime even when its length stays; usually nothing is dropped.
  if (starts.length !== run + 1) starts.length = run + 1;
  if (list.messages.length !== run) list.messages.length = run;
  for (let i = run; i < messages.length; i++) {
    if (i > 0) json += ',';
    starts[i] = json.length;
    json += JSON.stringify(wireMessage(messages[i]!));
    list.messages.push(messages[i]!);
  }
  starts[messages.length] = json.length + 1;
  list.json = json;
}

/**
 * The kept list for `messages`: the earlier list of the conversation, slid forward and extended in place. Only
 * its first messages that are no longer among its first stop finding it, and only new first ones start to, so
 * a list that keeps its first messages (a turn's second call, the next turn) touches the `WeakMap` not at all.
 */
function encoded(messages: readonly ChatMessage[]): EncodedList {
  const earlier = earlierList(messages);
  const list = earlier?.list ?? { system: undefined, systemJson: undefined, messages: [], json: '', starts: [1] };
  const at = earlier?.at ?? 0;
  const run = earlier ? sharedRun(list, at, messages) : 0;
  // The old first message at `i` stays a first message when it is among the `run` kept, less than KEYS from `at`.
  const kept = Math.min(run, KEYS);
  for (let i = 0; i < Math.min(KEYS, list.messages.length); i++) {
    const message = list.messages[i]!;
    if ((i < at || i >= at + kept) && lists.get(message) === list) lists.delete(message);
  }
  if (at > 0) slide(list, at, run);
  extend(list, messages, run);
  for (let i = 0; i < Math.min(KEYS, list.messages.length); i++) {
    if (i >= run || at + i >= KEYS) lists.set(list.messages[i]!, list);
  }
  return list;
}

/**
 * `[…]`: the system message (when there is a prompt) and the messages, exactly as `JSON.stringify` writes them,
 * in pieces to be written one after another: the system prompt's long shared head is never joined to the rest.
 */
export function messagesJson(system: string | undefined, messages: readonly ChatMessage[]): string[] {
  const list = messages.length === 0 ? undefined : encoded(messages);
  const pieces = ['['];
  const systemJson = system === undefined ? undefined : list?.system === system ? list.systemJson : promptJsonParts(system);
  if (systemJson) pieces.push('{"role":"system","content":', systemJson[0], systemJson[1], list ? '},' : '}');
  if (list) {
    list.system = system;
    list.systemJson = systemJson;
    pieces.push(list.json);
  }
  pieces.push(']');
  return pieces;
}
