import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliAsync } from '../support/cli.js';
import type { TempHome } from '../support/temp-home.js';

/**
 * Writes a config holding `channel_list` (and `gateway`, for the checks that look at its port) and runs
 * `tern doctor --json` on it: its output (for secrets it must not show) and each channel's check as
 * `[status, message]`.
 */
export async function channelDoctor(
  home: TempHome,
  channel_list: Record<string, unknown>,
  gateway?: { host: string; port: number },
): Promise<{ stdout: string; check(name: string): [string | undefined, string | undefined] }> {
  const config = { version: 2, channel_list, ...(gateway ? { gateway } : {}) };
  writeFileSync(join(home.home, 'config.json'), JSON.stringify(config), { mode: 0o600 });
  const { stdout } = await runCliAsync(['doctor', '--json'], home.env);
  const { checks } = JSON.parse(stdout) as { checks: Array<{ name: string; status: string; message: string }> };
  return {
    stdout,
    check: (name) => {
      const found = checks.find((c) => c.name === `channel ${name}`);
      return [found?.status, found?.message];
    },
  };
}
