import { z } from 'zod';
import { bool, int, oneOf, textList } from '../fields.js';
import { cronSchema, execSchema } from './exec.js';
import { mcpSchema } from './mcp.js';
import { skillsSchema } from './skills.js';
import { webSchema } from './web.js';

const toggle = (enabled: boolean) => z.object({ enabled: bool().default(enabled) }).prefault({});

export const toolsSchema = z.object({
  allow_read_paths: textList().default([]),
  allow_write_paths: textList().default([]),
  filter_sensitive_data: bool().default(true),
  filter_min_length: int(1).default(8),
  web: webSchema.prefault({}),
  mcp: mcpSchema.prefault({}),
  exec: execSchema.prefault({}),
  cron: cronSchema.prefault({}),
  skills: skillsSchema.prefault({}),
  todo: toggle(true),
  search_files: toggle(true),
  send_file: toggle(true),
  read_file: z
    .object({
      enabled: bool().default(true),
      mode: oneOf(['bytes', 'lines']).default('bytes'),
      max_read_file_size: int(1).default(65536),
    })
    .prefault({}),
  message: z.object({ enabled: bool().default(true), media_enabled: bool().default(false) }).prefault({}),
});
