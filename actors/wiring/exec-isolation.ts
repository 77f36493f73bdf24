// Apart from the tools' options (wiring/tools.ts), which cron loads at every start: the probe, and child_process with
// it, loads only where it is used.
import { isolationState, type IsolationSetting, type IsolationState } from '../../adapters/tools/exec/isolation.js';
import { DEFAULT_EXEC } from '../../adapters/tools/options.js';
import type { Config } from '../../store/config/index.js';
import { execIsolation } from '../../store/config/schema/tools/exec.js';

/** How `tools.exec` asks for isolation, as the probe takes it. */
function isolationSettingOf(config: Config): IsolationSetting {
  return { mode: execIsolation(config.tools.exec).mode, network: config.tools.exec.network, bwrap: DEFAULT_EXEC.bwrap };
}

/**
 * What exec and cron command jobs run under with this config: undefined while exec is disabled. A gateway
 * logs it once at start when exec is not isolated.
 */
export async function execIsolationState(config: Config): Promise<IsolationState | undefined> {
  return config.tools.exec.enabled ? isolationState(isolationSettingOf(config)) : undefined;
}
