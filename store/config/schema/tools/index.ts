import * as z from 'zod/mini';
import { bool, int, oneOf, textList } from '../fields.js';
import { withDefault } from '../shared.js';
import { cronSchema, execSchema } from './exec.js';
import { mcpSchema } from './mcp.js';
import { skillsSchema } from './skills.js';
import { webSchema } from './web.js';

/** Built once: the blocks that only switch a tool on or off (or have it approved first) share it. */
const onByDefault = z.prefault(
  z.object({ enabled: withDefault(bool(), true), require_approval: withDefault(bool(), false) }),
  {},
);

export const toolsSchema = z.object({
  allow_read_paths: withDefault(textList().check(z.describe('Folders outside the workspace tools may read')), []),
  allow_write_paths: withDefault(textList().check(z.describe('Folders outside the workspace tools may write')), []),
  filter_sensitive_data: withDefault(
    bool().check(z.describe('Mask known secrets in tool output before the model sees it')),
    true,
  ),
  filter_min_length: withDefault(int(1), 8),
  web: z.prefault(webSchema, {}),
  mcp: z.prefault(mcpSchema, {}),
  exec: z.prefault(execSchema, {}),
  cron: z.prefault(cronSchema, {}),
  skills: z.prefault(skillsSchema, {}),
  todo: onByDefault,
  search_files: onByDefault,
  send_file: onByDefault,
  spawn: onByDefault,
  spawn_status: onByDefault,
  subagent: onByDefault,
  /** The peer runtime's speech tool: off unless switched on (and a speech model is named or found). */
  send_tts: z.prefault(
    z.object({ enabled: withDefault(bool(), false), require_approval: withDefault(bool(), false) }),
    {},
  ),
  read_file: z.prefault(
    z.object({
      enabled: withDefault(bool(), true),
      mode: withDefault(oneOf(['bytes', 'lines']), 'bytes'),
      max_read_file_size: withDefault(int(1), 65536),
      require_approval: withDefault(bool(), false),
    }),
    {},
  ),
  message: z.prefault(
    z.object({
      enabled: withDefault(bool(), true),
      media_enabled: withDefault(bool(), false),
      require_approval: withDefault(bool(), false),
    }),
    {},
  ),
  /**
   * The gateway's removal of files users sent (`<workspace>/media/inbound/`), in the peer runtime's shape: files older
   * than `max_age_minutes` (default 7 days) go every `interval_minutes` × `power.poll_interval_multiplier`.
   */
  media_cleanup: z.prefault(
    z.object({
      enabled: withDefault(bool(), true),
      max_age_minutes: withDefault(int(1), 7 * 24 * 60),
      interval_minutes: withDefault(int(1), 30),
    }),
    {},
  ),
  write_file: onByDefault,
  edit_file: onByDefault,
  append_file: onByDefault,
  list_dir: onByDefault,
  find_skills: onByDefault,
  install_skill: onByDefault,
});
