import type { CronToolOptions } from '../../adapters/tools/cron/cron-tool.js';
import type { Config } from '../../store/config/index.js';

/** `tools.cron` as the cron tool takes it (`ToolsOptions.cron`). */
export function cronToolOptions(config: Config): CronToolOptions {
  const { enabled, allow_command, command_allowed_remotes } = config.tools.cron;
  return { enabled, allowCommand: allow_command, commandAllowedRemotes: command_allowed_remotes };
}
