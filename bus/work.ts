import type { Envelope, EventType } from './events/index.js';

/**
 * Work and who consumes it: each event of these types is handled by exactly one consumer of its group, and an
 * accepted one is never dropped (it waits for a consumer, and a restart hands back what was left unfinished).
 * - `dispatcher`: a channel accepted a message; it is routed to an agent and session.
 * - `sessions`: a routed message waits in its session's mailbox for its turn (or chat command).
 * - `outbox`: a reply to deliver to a chat, part by part (only replies with a `reply` target: the others are read by
 *   whoever asked, such as the terminal).
 */
export const WORK_GROUPS = {
  dispatcher: ['message.received'],
  sessions: ['message.routed'],
  outbox: ['reply.requested'],
} as const satisfies Record<string, readonly EventType[]>;

export type WorkGroup = keyof typeof WORK_GROUPS;
export type WorkType<G extends WorkGroup> = (typeof WORK_GROUPS)[G][number];

const groupOfType = new Map<string, WorkGroup>(
  (Object.entries(WORK_GROUPS) as Array<[WorkGroup, readonly string[]]>).flatMap(([group, types]) =>
    types.map((type) => [type, group] as const),
  ),
);

/** The group whose work this event is, if any. */
export function workGroupOf(event: Envelope): WorkGroup | undefined {
  if (event.type === 'reply.requested' && event.data.reply === undefined) return undefined;
  return groupOfType.get(event.type);
}
