import * as z from 'zod';

const stateEventSchema = z.looseObject({
  type: z.string(),
  state_key: z.string().optional(),
  content: z.looseObject({}).optional(),
});
const strippedStateSchema = z.looseObject({ events: z.array(stateEventSchema).optional() });

const joinedRoomSchema = z.looseObject({
  summary: z.looseObject({ 'm.joined_member_count': z.number().optional() }).optional(),
  state: z.looseObject({ events: z.array(stateEventSchema).optional() }).optional(),
  timeline: z.looseObject({ events: z.array(z.looseObject({ type: z.string() })).optional() }).optional(),
});

/** The parts of a `/sync` answer the channel reads: joined rooms' timelines and state, and invites. */
export const syncAnswerSchema = z.looseObject({
  next_batch: z.string(),
  rooms: z
    .looseObject({
      join: z.record(z.string(), joinedRoomSchema).optional(),
      invite: z.record(z.string(), z.looseObject({ invite_state: strippedStateSchema.optional() })).optional(),
    })
    .optional(),
});
export type SyncAnswer = z.infer<typeof syncAnswerSchema>;

/** What the channel knows of a joined room from the syncs so far. */
export interface RoomFacts {
  members: number;
  encrypted: boolean;
}

/** Folds one joined room's sync entry into what was known of it: member count and whether it is encrypted. */
export function roomFacts(before: RoomFacts | undefined, entry: z.infer<typeof joinedRoomSchema>): RoomFacts {
  const timeline = (entry.timeline?.events ?? []) as Array<z.infer<typeof stateEventSchema>>;
  const events = [...(entry.state?.events ?? []), ...timeline];
  const joinedInState = events.filter((e) => e.type === 'm.room.member' && e.content?.membership === 'join').length;
  const members = entry.summary?.['m.joined_member_count'] ?? before?.members ?? joinedInState;
  const encrypted = (before?.encrypted ?? false) || events.some((e) => e.type === 'm.room.encryption');
  return { members, encrypted };
}

/** Whether an invite's stripped state says the room is end-to-end encrypted. */
export const inviteEncrypted = (events: Array<{ type: string }> | undefined): boolean =>
  (events ?? []).some((e) => e.type === 'm.room.encryption');
