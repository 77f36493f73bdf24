import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { App } from '@slack/bolt';
import { ChannelError, type OutboundFile } from './channel.js';
import { rethrowRateLimit } from './slack-rate-limit.js';
import { slackTarget } from './slack-message.js';

/**
 * A file into a Slack conversation (and thread) with Bolt's web client: `files.getUploadURLExternal`, the bytes to
 * the URL it gives, `files.completeUploadExternal` with the caption as `initial_comment`. Slack shows images inline.
 * The message id is the file's id: Slack names no message for an upload.
 */
export async function uploadToSlack(client: App['client'], replyTo: string, file: OutboundFile): Promise<string> {
  const bytes = await readFile(file.path).catch((error: Error) => {
    throw new ChannelError('platform', `cannot read ${basename(file.path)} to send it (${error.message})`);
  });
  const { channel, thread_ts } = slackTarget(replyTo);
  const where = thread_ts ? { channel_id: channel, thread_ts } : { channel_id: channel };
  const answer = await client
    .filesUploadV2({
      ...where,
      file: bytes,
      filename: basename(file.path),
      ...(file.caption ? { initial_comment: file.caption } : {}),
    })
    .catch(rethrowRateLimit)
    .catch((error: Error) => {
      if (error instanceof ChannelError) throw error;
      throw new ChannelError('platform', `Slack upload failed (${error.message})`);
    });
  const uploaded = (answer as { files?: Array<{ files?: Array<{ id?: string }> }> }).files?.[0]?.files?.[0]?.id;
  return uploaded ?? '';
}
