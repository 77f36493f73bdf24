import type { ParsedMail } from 'mailparser';
import type { ChannelMessage } from '../channel.js';
import type { ThreadEntry } from './state.js';

/** An inbound mail in the dispatch vocabulary, with what the channel keeps of it. */
export interface InboundMail {
  message: ChannelMessage;
  /** The mail's Message-ID and its thread, remembered so replies to it continue the thread. */
  messageId: string;
  thread: ThreadEntry;
  /** Attachment bytes by the fileId its media carries, for `download`. */
  files: Map<string, Buffer>;
}

const listOf = (value: string | string[] | undefined): string[] =>
  (Array.isArray(value) ? value : value ? value.split(/\s+/) : []).map((id) => id.trim()).filter(Boolean);

/**
 * A reply quotes what it answers under a line like `On Mon, Alice wrote:`: the model has that text in its session
 * already, so the quote is cut.
 */
export function withoutQuote(text: string): string {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  let end = lines.length;
  while (end > 0 && (lines[end - 1]!.startsWith('>') || lines[end - 1]!.trim() === '')) end--;
  if (end === lines.length) return text.trim();
  if (end > 0 && /\bwrote:\s*$/.test(lines[end - 1]!)) end--;
  return lines.slice(0, end).join('\n').trim();
}

/**
 * The thread a mail belongs to: the first of its References, else the thread of the message it replies to (Tern's
 * own replies are remembered), else the mail itself starts one.
 */
export function threadOf(
  mail: Pick<ParsedMail, 'references' | 'inReplyTo' | 'subject'>,
  messageId: string,
  known: (id: string) => ThreadEntry | undefined,
): ThreadEntry {
  const references = listOf(mail.references);
  const inReplyTo = listOf(mail.inReplyTo)[0];
  const parent = inReplyTo ? known(inReplyTo) : undefined;
  const root = references[0] ?? parent?.root ?? inReplyTo ?? messageId;
  const chain = references.length > 0 ? references : inReplyTo ? [...(parent?.references ?? []), inReplyTo] : [];
  return { root, subject: mail.subject ?? '', references: [...chain.filter((id) => id !== messageId), messageId] };
}

/**
 * Where the channel's replies in a thread go: the sender and the thread's first Message-ID. It is also the chat
 * (`direct:<it>`), as tools that send to the session's chat name it.
 */
export const replyToOf = (address: string, root: string): string => `${address}#${root}`;

export function parseReplyTo(replyTo: string): { address: string; root: string | undefined } {
  const at = replyTo.indexOf('#<');
  return at < 0
    ? { address: replyTo, root: undefined }
    : { address: replyTo.slice(0, at), root: replyTo.slice(at + 1) };
}

/**
 * One parsed mail as a channel message: its text part (mailparser reduces an HTML-only mail to text), the quote of
 * the message it answers cut, the subject when the body is empty; attachments as media (audio: a recording). Its
 * chat is the sender and the thread, so each thread is a session of its own. Mail from the bot's own address (a copy
 * of what it sent) is none.
 */
export function fromMail(
  mail: ParsedMail,
  uid: number,
  ownAddress: string,
  maxAttachmentBytes: number,
  known: (id: string) => ThreadEntry | undefined,
): InboundMail | undefined {
  const sender = mail.from?.value[0]?.address?.trim().toLowerCase();
  if (!sender || sender === ownAddress.toLowerCase()) return undefined;
  const messageId = mail.messageId?.trim() || `<uid-${uid}@tern.invalid>`;
  const thread = threadOf(mail, messageId, known);
  const audio: NonNullable<ChannelMessage['audio']> = [];
  const media: NonNullable<ChannelMessage['media']> = [];
  const files = new Map<string, Buffer>();
  const tooLarge: string[] = [];
  mail.attachments.forEach((file, index) => {
    const name = file.filename ?? `attachment-${index + 1}`;
    if (file.content.length > maxAttachmentBytes) {
      tooLarge.push(`[attachment ${name} not taken: ${file.content.length} bytes, over ${maxAttachmentBytes}]`);
      return;
    }
    const fileId = `${uid}:${index}`;
    const mime = file.contentType || 'application/octet-stream';
    files.set(fileId, file.content);
    if (mime.startsWith('audio/')) audio.push({ fileId, mime, name });
    else {
      const kind = mime.startsWith('image/') ? 'image' : mime.startsWith('video/') ? 'video' : 'file';
      media.push({ kind, fileId, mime, name });
    }
  });
  const body = withoutQuote(mail.text ?? '');
  const text = [body || (files.size === 0 ? (mail.subject ?? '').trim() : ''), ...tooLarge].filter(Boolean).join('\n');
  if (text === '' && files.size === 0) return undefined;
  return {
    messageId,
    thread,
    files,
    message: {
      messageId,
      chat: `direct:${replyToOf(sender, thread.root)}`,
      replyTo: replyToOf(sender, thread.root),
      sender,
      senderAliases: [sender],
      text,
      mentioned: true,
      ...(audio.length > 0 ? { audio } : {}),
      ...(media.length > 0 ? { media } : {}),
    },
  };
}
