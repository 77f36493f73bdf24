import * as z from 'zod';

// The Pico Protocol (INTERFACES.md "Web-UI chat channel"): JSON frames over one WebSocket. Tern speaks it as a
// server (the launcher's `/pico/ws`, for the dashboard's chat) and as a client (`pico_client`, of a remote server).

export const sessionIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'session_id must be 1–64 letters, digits, _ or -' });

const envelope = {
  id: z.string().max(200).optional(),
  session_id: sessionIdSchema.optional(),
  timestamp: z.number().optional(),
};

export const MAX_MESSAGE_CHARS = 32_000;

export const clientFrameSchema = z.discriminatedUnion(
  'type',
  [
    z.object({
      type: z.literal('message.send'),
      ...envelope,
      payload: z.object({
        content: z
          .string()
          .trim()
          .min(1, { error: 'payload.content must not be empty' })
          .max(MAX_MESSAGE_CHARS, { error: `payload.content must be at most ${MAX_MESSAGE_CHARS} characters` }),
      }),
    }),
    z.object({ type: z.literal('ping'), ...envelope, payload: z.unknown().optional() }),
  ],
  { error: 'type must be message.send or ping' },
);

export type ClientFrame = z.infer<typeof clientFrameSchema>;

/** A client shows the server it is writing: what a bot connected as a client sends while its reply is on its way. */
export const clientTypingFrameSchema = z.object({
  type: z.enum(['typing.start', 'typing.stop']),
  ...envelope,
  payload: z.object({}).optional(),
});

export type ClientTypingFrame = z.infer<typeof clientTypingFrameSchema>;

/** A file sent to the chat: an image comes as a `data:` URL the page shows; other files by name and size only. */
export const frameMediaSchema = z.object({
  kind: z.enum(['image', 'audio', 'video', 'file']),
  name: z.string(),
  mime: z.string().optional(),
  bytes: z.number().int().nonnegative(),
  url: z.string().optional(),
});

export type FrameMedia = z.infer<typeof frameMediaSchema>;

/** The peer runtime's media item: a bare `data:` URL, or an object naming one as `url` or `data_url`. */
const peerMediaSchema = z.union([
  z.string(),
  z.looseObject({ url: z.string().optional(), data_url: z.string().optional() }),
]);

/**
 * What a server sends. Tern's server fills every field; a remote one (the peer runtime's) may leave out ids, send
 * `media.create`, mark the model's reasoning (`kind: "thought"`, or `thought: true` on older servers) and add fields.
 */
export const serverFrameSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.enum(['message.create', 'message.update', 'media.create']),
    ...envelope,
    payload: z.looseObject({
      message_id: z.string().optional(),
      content: z.string().optional(),
      choices: z.array(z.object({ label: z.string(), reply: z.string() })).optional(),
      media: z.union([z.array(z.union([frameMediaSchema, peerMediaSchema])), z.string()]).optional(),
      kind: z.string().optional(),
      thought: z.boolean().optional(),
    }),
  }),
  z.object({ type: z.enum(['typing.start', 'typing.stop']), ...envelope, payload: z.object({}).optional() }),
  z.object({
    type: z.literal('error'),
    ...envelope,
    payload: z.looseObject({ code: z.string(), message: z.string() }),
  }),
  z.object({ type: z.literal('pong'), ...envelope, payload: z.unknown().optional() }),
]);

export type ServerFrame = z.infer<typeof serverFrameSchema>;

export type FrameParse = { ok: true; frame: ClientFrame } | { ok: false; message: string };

export function parseClientFrame(text: string): FrameParse {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, message: 'a frame must be one JSON object' };
  }
  const result = clientFrameSchema.safeParse(json);
  if (result.success) return { ok: true, frame: result.data };
  const issue = result.error.issues[0];
  const path = issue?.path.join('.') ?? '';
  const message = issue?.message ?? 'the frame is not valid';
  return { ok: false, message: path && !message.startsWith(path) ? `${path}: ${message}` : message };
}
