import { z } from 'zod/mini';
import { bool, int, list, pattern, remoteList } from '../fields.js';
import { withDefault } from '../shared.js';

export const execSchema = z.object({
  enabled: withDefault(bool(), true),
  allow_remote: withDefault(bool(), false),
  enable_deny_patterns: withDefault(bool(), true),
  custom_deny_patterns: withDefault(list(pattern()), []),
  custom_allow_patterns: withDefault(list(pattern()), []),
  /** 0 means the built-in default. */
  timeout_seconds: withDefault(int(0), 0),
});

export const cronSchema = z.object({
  enabled: withDefault(bool(), true),
  allow_command: withDefault(bool(), true),
  command_allowed_remotes: withDefault(remoteList(), []),
  /** 0 means no limit. */
  exec_timeout_minutes: withDefault(int(0), 5),
});
