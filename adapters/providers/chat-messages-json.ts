import type { ChatMessage } from '../../bus/index.js';
import { promptJsonParts, type PromptJson } from './prompt-json.js';

/**
 * The `messages` array of a chat-completions body. A call's list mostly repeats a list sent before: a turn's
 * second call is its first call's list and two more messages, and the next turn's list is the same history,
 * maybe slid forward by a turn. So the JSON of the last list of each conversation is kept, and a new list
 * takes the run of messages it shares with that list (the same message objects, never changed once made) as
 * one slice and serializes only the rest: one lookup a call instead of one per message.
 */
interface EncodedList {
  system: string | undefined;
  systemJson: PromptJson | undefined;
  messages: readonly ChatMessage[];
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

/** The earlier list holding `messages[0]` among its first messages, and where. */
function earlierList(messages: readonly ChatMessage[]): { list: EncodedList; at: number } | undefined {
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

function remember(list: EncodedList, replaced: EncodedList | undefined): void {
  // The replaced list would otherwise live as long as its first messages do (a session's whole history).
  if (replaced) {
    for (let i = 0; i < Math.min(KEYS, replaced.messages.length); i++) {
      const message = replaced.messages[i]!;
      if (lists.get(message) === replaced) lists.delete(message);
    }
  }
  for (let i = 0; i < Math.min(KEYS, list.messages.length); i++) lists.set(list.messages[i]!, list);
}

/**
 * `[…]`: the system message (when there is a prompt) and the messages, exactly as `JSON.stringify` writes them,
 * in pieces to be written one after another: the system prompt's long shared head is never joined to the rest.
 */
export function messagesJson(system: string | undefined, messages: readonly ChatMessage[]): string[] {
  const earlier = earlierList(messages);
  const pieces = ['['];
  const systemJson = system === undefined ? undefined : earlier?.list.system === system ? earlier.list.systemJson : promptJsonParts(system);
  if (systemJson) pieces.push('{"role":"system","content":', systemJson[0], systemJson[1], messages.length > 0 ? '},' : '}');
  let json = '';
  const starts = new Array<number>(messages.length + 1);
  const run = earlier ? sharedRun(earlier.list, earlier.at, messages) : 0;
  if (earlier && run > 0) {
    const from = earlier.list.starts[earlier.at]!;
    for (let i = 0; i < run; i++) starts[i] = earlier.list.starts[earlier.at + i]! - from;
    json = earlier.list.json.slice(from, earlier.list.starts[earlier.at + run]! - 1);
  }
  for (let i = run; i < messages.length; i++) {
    if (i > 0) json += ',';
    starts[i] = json.length;
    json += JSON.stringify(wireMessage(messages[i]!));
  }
  starts[messages.length] = json.length + 1;
  pieces.push(json, ']');
  if (messages.length > 0) remember({ system, systemJson, messages: messages.slice(), json, starts }, earlier?.list);
  return pieces;
}
