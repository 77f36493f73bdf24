import { ControlClientError, GatewayClient } from '../control/client.js';
import { agentHome, configPath } from '../../store/paths.js';
import { CliError, SaidError } from './errors.js';

/**
 * The gateway running on this `AGENT_HOME` for the same config file, as a connected client; undefined when none
 * runs (a socket a killed gateway left behind is removed on the way). One that refuses this client is an error.
 */
export async function findGateway(env: NodeJS.ProcessEnv): Promise<GatewayClient | undefined> {
  try {
    return await GatewayClient.connect(agentHome(env), configPath(env));
  } catch (error) {
    if (!(error instanceof ControlClientError)) throw error;
    const hint = 'Check that this user runs it, or stop it (Ctrl-C in its terminal).';
    throw new CliError(`gateway_${error.code}`, 'cannot talk to the running gateway', error.message, hint);
  }
}

/** A failed request to the gateway as the CLI error the user reads. */
export function gatewayFailure(error: unknown): unknown {
  if (!(error instanceof ControlClientError)) return error;
  if (error.code === 'gateway_gone' || error.code === 'gateway_stopping') {
    const hint = 'Run the command again: with no gateway running it runs here.';
    return new CliError(error.code, 'the gateway went away', error.message, hint);
  }
  return new SaidError(error.code, error.message, error.exitCode === 2 ? 2 : 1);
}
