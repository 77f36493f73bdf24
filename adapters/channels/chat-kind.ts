/** A chat as the gateway and its tools name it: `direct:<id>`, `group:<id>` or `channel:<id>`. */
export interface NamedChat {
  kind: 'direct' | 'group' | 'channel';
  id: string;
}

/** The kind and id of a named chat; `undefined` for anything else (a platform's own address, a bare id). */
export function namedChatOf(chat: string): NamedChat | undefined {
  const match = /^(direct|group|channel):(.+)$/s.exec(chat);
  return match ? { kind: match[1] as NamedChat['kind'], id: match[2]! } : undefined;
}
