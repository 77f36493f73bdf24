import * as z from 'zod';

/** The web-UI chat wire protocol (INTERFACES.md "Web-UI chat channel"). */
const envelope = {
  id: z.string().max(200).optional(),
  session_id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'session_id must be 1–64 letters, digits, _ or -' })
    .optional(),
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

/** A file sent to the chat: an image comes as a `data:` URL the page shows; other files by name and size only. */
export type FrameMedia = {
  kind: 'image' | 'audio' | 'video' | 'file';
  name: string;
  mime?: string;
  bytes: number;
  url?: string;
};

export type ServerFrame =
  | {
      type: 'message.create' | 'message.update';
      session_id: string;
      timestamp: number;
      payload: {
        message_id: string;
        content: string;
        choices?: Array<{ label: string; reply: string }>;
        media?: FrameMedia[];
      };
    }
  | { type: 'typing.start' | 'typing.stop'; session_id: string; timestamp: number; payload: Record<string, never> }
  | { type: 'error'; id?: string; session_id?: string; timestamp: number; payload: { code: string; message: string } }
  | { type: 'pong'; id?: string; session_id?: string; timestamp: number; payload: Record<string, never> };

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
