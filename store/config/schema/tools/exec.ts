import { z } from 'zod';
import { bool, int, list, pattern, text } from '../fields.js';

export const execSchema = z.object({
  enabled: bool().default(true),
  allow_remote: bool().default(false),
  enable_deny_patterns: bool().default(true),
  custom_deny_patterns: list(pattern()).default([]),
  custom_allow_patterns: list(pattern()).default([]),
  /** 0 means the built-in default. */
  timeout_seconds: int(0).default(0),
});

const REMOTE = /^(\*|[^:\s]+(:[^\s]+)?)$/;

export const cronSchema = z.object({
  enabled: bool().default(true),
  allow_command: bool().default(true),
  command_allowed_remotes: list(
    text().regex(REMOTE, {
      error: (issue) => `${JSON.stringify(issue.input)} is not a remote (allowed: <channel>, <channel>:<chat_id>, *)`,
    }),
  ).default([]),
  /** 0 means no limit. */
  exec_timeout_minutes: int(0).default(5),
});
