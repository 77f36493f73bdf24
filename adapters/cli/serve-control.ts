import { serveControl, type ControlHost } from '../../actors/gateway/control-service.js';
import type { CommandSpec } from './command.js';
import { gatewayCommands } from './gateway-commands.js';

/** Where the gateway says that the CLI cannot reach it (its log). */
type Warn = (message: string, fields: Record<string, string>) => void;

/**
 * The control socket of a gateway this process runs (`tern gateway`, `tern-launcher`), with the CLI's commands it
 * runs for clients. A gateway that cannot serve it (another serves this home) runs on, and says so.
 */
export async function serveCliControl(
  gateway: ControlHost,
  warn: Warn,
  commands: readonly CommandSpec[],
): Promise<{ close(): Promise<void> } | undefined> {
  try {
    return await serveControl(gateway, gatewayCommands(gateway, commands));
  } catch (error) {
    const message =
      'the CLI cannot hand work to this gateway: tern agent and the other commands run in their own process';
    warn(message, { reason: (error as Error).message });
    return undefined;
  }
}
