import { z } from 'zod/mini';
import { bool, int, list, pattern, text } from '../fields.js';
import { withDefault } from '../shared.js';

export const execSchema = z.object({
  enabled: withDefault(bool(), true),
  allow_remote: withDefault(bool(), false),
  enable_deny_patterns: withDefault(bool(), true),
  custom_deny_patterns: withDefault(list(pattern()), []),
  custom_allow_patterns: withDefault(list(pattern()), []),
  /** 0 means the built-in default. */
  timeout_seconds: withDefault(int(0), 0),
  /** Ask the user in the chat before each command runs. */
  require_approval: withDefault(bool(), false),
});

const REMOTE = /^(\*|[^:\s]+(:[^\s]+)?)$/;

export const cronSchema = z.object({
  enabled: withDefault(bool(), true),
  allow_command: withDefault(bool(), true),
  command_allowed_remotes: withDefault(
    list(
      text().check(
        z.regex(REMOTE, {
          error: (issue) => `${JSON.stringify(issue.input)} is not a remote (allowed: <channel>, <channel>:<chat_id>, *)`,
        }),
      ),
    ),
    [],
  ),
  /** 0 means no limit. */
  exec_timeout_minutes: withDefault(int(0), 5),
  require_approval: withDefault(bool(), false),
});
