import * as z from 'zod';
import type { ChannelMessage } from '../channel.js';

const attachmentSchema = z.looseObject({
  contentType: z.string().default('application/octet-stream'),
  filename: z.string().nullish(),
  id: z.string(),
});

/** A `receive` notification of signal-cli's JSON-RPC daemon. */
export const receiveSchema = z.looseObject({
  method: z.literal('receive'),
  params: z.looseObject({
    envelope: z.looseObject({
      source: z.string().nullish(),
      sourceNumber: z.string().nullish(),
      sourceUuid: z.string().nullish(),
      timestamp: z.number(),
      dataMessage: z
        .looseObject({
          message: z.string().nullish(),
          attachments: z.array(attachmentSchema).optional(),
          groupInfo: z.looseObject({ groupId: z.string() }).nullish(),
          mentions: z.array(z.looseObject({ number: z.string().nullish(), uuid: z.string().nullish() })).optional(),
        })
        .nullish(),
    }),
  }),
});
export type Receive = z.infer<typeof receiveSchema>;

/**
 * A data message in the dispatch vocabulary; receipts, typing and sync messages are none. Signal names a message by
 * its author and timestamp; a group's replies go to `group:<id>`. Attachments become media (audio: a recording), their
 * id `<recipient>|<attachment id>` for `getAttachment`.
 */
export function fromEnvelope(receive: Receive, account: string): ChannelMessage | undefined {
  const { envelope } = receive.params;
  const data = envelope.dataMessage;
  const sender = envelope.sourceNumber ?? envelope.source ?? envelope.sourceUuid;
  if (!data || !sender || sender === account) return undefined;
  const group = data.groupInfo?.groupId;
  const replyTo = group ? `group:${group}` : sender;
  const audio: NonNullable<ChannelMessage['audio']> = [];
  const media: NonNullable<ChannelMessage['media']> = [];
  for (const file of data.attachments ?? []) {
    const fileId = `${replyTo}|${file.id}`;
    const name = file.filename ?? file.id;
    if (file.contentType.startsWith('audio/')) audio.push({ fileId, mime: file.contentType, name });
    else {
      const kind = file.contentType.startsWith('image/')
        ? 'image'
        : file.contentType.startsWith('video/')
          ? 'video'
          : 'file';
      media.push({ kind, fileId, mime: file.contentType, name });
    }
  }
  const text = (data.message ?? '').trim();
  if (text === '' && audio.length === 0 && media.length === 0) return undefined;
  const mentioned = !group || (data.mentions ?? []).some((m) => m.number === account);
  return {
    messageId: `${sender}:${envelope.timestamp}`,
    chat: group ? `group:${group}` : `direct:${sender}`,
    replyTo,
    sender,
    senderAliases: [sender, ...(envelope.sourceUuid && envelope.sourceUuid !== sender ? [envelope.sourceUuid] : [])],
    text,
    mentioned,
    ...(audio.length > 0 ? { audio } : {}),
    ...(media.length > 0 ? { media } : {}),
  };
}
