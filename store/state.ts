import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';

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

const stateFile = (workspace: string): string => join(workspace, 'state', 'last-channel.json');

/** The last active channel, or undefined when none was recorded (or the file was damaged). */
export function readLastChannel(workspace: string): LastChannel | undefined {
  const file = stateFile(workspace);
  if (!existsSync(file)) return undefined;
  try {
    const parsed = lastChannelSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Written atomically (temp file, rename) so a crash never leaves half a file. */
export function writeLastChannel(workspace: string, last: LastChannel): void {
  const file = stateFile(workspace);
  mkdirSync(join(workspace, 'state'), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(last)}\n`, { mode: 0o600 });
  renameSync(temp, file);
}

/**
 * The tasks of `HEARTBEAT.md`: its text without blank lines, headings and HTML comments, so a file that only
 * holds the template's headings counts as having no tasks.
 */
export function readHeartbeatTasks(workspace: string): string {
  const file = join(workspace, 'HEARTBEAT.md');
  if (!existsSync(file)) return '';
  return readFileSync(file, 'utf8')
    .replace(/<!--[\s\S]*?-->/g, '')
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^\s*#/.test(line))
    .join('\n');
}
