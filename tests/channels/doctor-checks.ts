import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliAsync } from '../support/cli.js';
import type { TempHome } from '../support/temp-home.js';

/**
 * Writes a config holding `channel_list` and runs `tern doctor --json` on it: its output (for secrets it must not
 * show) and each channel's check as `[status, message]`.
 */
export async function channelDoctor(
  home: TempHome,
  channel_list: Record<string, unknown>,
): Promise<{ stdout: string; check(name: string): [string | undefined, string | undefined] }> {
  writeFileSync(join(home.home, 'config.json'), JSON.stringify({ version: 2, channel_list }), { mode: 0o600 });
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
