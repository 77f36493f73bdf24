import { join } from 'node:path';
import * as z from 'zod';
import { HeldDirectory } from './files/held-directory.js';
import { readRegular, readUserText, writeAtomic } from './files/regular-file.js';

/** Where the last user message came from: heartbeat answers go there. */
export const lastChannelSchema = z.object({
  /** The `channel_list` entry name. */
  channel: z.string(),
  account: z.string(),
  chat: z.string(),
  /** The platform's own chat id, where a reply is sent. */
  reply_to: z.string(),
  at: z.string(),
});
export type LastChannel = z.infer<typeof lastChannelSchema>;

const STATE_DIR = 'state';
const LAST_CHANNEL = 'last-channel.json';

/**
 * The workspace's `state/` folder, held by handle: a sandboxed command can write the workspace, and a link it plants
 * there (`state` itself, a file in it) must never lead the runtime's reads or writes elsewhere.
 */
export function holdStateDir(workspace: string, create = false): HeldDirectory {
  const root = HeldDirectory.openTrusted(workspace, create ? { mode: 0o700 } : undefined);
  try {
    return root.child(STATE_DIR, create ? { mode: 0o700 } : undefined);
  } finally {
    root.close();
  }
}

/** The last active channel, or undefined when none was recorded (or the file was damaged, or is not a plain file). */
export function readLastChannel(workspace: string): LastChannel | undefined {
  try {
    const dir = holdStateDir(workspace);
    try {
      return lastChannelIn(dir);
    } finally {
      dir.close();
    }
  } catch {
    return undefined;
  }
}

function lastChannelIn(dir: HeldDirectory): LastChannel | undefined {
  const bytes = readRegular(dir, LAST_CHANNEL);
  if (!bytes) return undefined;
  const parsed = lastChannelSchema.safeParse(JSON.parse(bytes.toString('utf8')));
  return parsed.success ? parsed.data : undefined;
}

/** Whether two records name the same chat to answer in; when it was last active does not matter. */
const sameChat = (a: LastChannel, b: LastChannel): boolean =>
  a.channel === b.channel && a.account === b.account && a.chat === b.chat && a.reply_to === b.reply_to;

/**
 * Written atomically (a temp file with an unguessable name, then a rename) so a crash never leaves half a file, and
 * only when the chat changes: a busy chat's every message made a file and a rename, and `at` then says since when
 * this chat is the last active one. A failure is reported, never thrown: the message it belongs to is already
 * accepted. A link planted at the file or at `state/` is refused and left where it is.
 */
export function writeLastChannel(workspace: string, last: LastChannel, report: (problem: string) => void = () => {}) {
  try {
    const dir = holdStateDir(workspace, true);
    try {
      const current = unlessUnreadable(() => lastChannelIn(dir));
      if (current && sameChat(current, last)) return;
      writeAtomic(dir, LAST_CHANNEL, `${JSON.stringify(last)}\n`);
    } finally {
      dir.close();
    }
  } catch (error) {
    report(`the last active channel was not saved: ${(error as Error).message}`);
  }
}

/** What `read` returns, or undefined when it fails: the write then replaces a damaged file or refuses a planted one. */
function unlessUnreadable<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/**
 * The tasks of `HEARTBEAT.md`: its text without blank lines, headings and HTML comments, so a file that only
 * holds the template's headings counts as having no tasks.
 */
export function readHeartbeatTasks(workspace: string): string {
  return (readUserText(join(workspace, 'HEARTBEAT.md')) ?? '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^\s*#/.test(line))
    .join('\n');
}
