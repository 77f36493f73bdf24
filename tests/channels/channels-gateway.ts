// A gateway process running some channels against their emulators, with the loopback model answering its turns: the
// fixture of the tests that look at more than one channel kind at once.
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { modelEntry, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { freePort } from '../support/telegram-emulator.js';

export interface ChannelsGateway {
  model: GatewayModel;
  gateway: GatewayProcess;
}

/** Starts the model and a gateway with `channelList`; resolves once the gateway is ready. */
export async function startChannelsGateway(channelList: Record<string, unknown>): Promise<ChannelsGateway> {
  const model = await startGatewayModel();
  const gateway = await startGatewayProcess({
    gateway: { host: '127.0.0.1', port: await freePort() },
    agents: { defaults: { model: 'fast' } },
    model_list: [modelEntry(model.url)],
    heartbeat: { enabled: false },
    channel_list: channelList,
  });
  return { model, gateway };
}

/** Stops what `startChannelsGateway` started, as far as it got. */
export async function stopChannelsGateway(started: Partial<ChannelsGateway>): Promise<void> {
  if (started.gateway?.child.exitCode === null) await started.gateway.stop();
  await started.model?.close();
  started.gateway?.home.remove();
}

/** What `read()` gives once it gives anything; fails naming `what` after `timeoutMs`. */
export async function untilSome<T>(read: () => T[], what: string, timeoutMs = 60_000): Promise<T[]> {
  const deadline = Date.now() + timeoutMs;
  while (read().length === 0) {
    if (Date.now() > deadline) throw new Error(`nothing reached ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return read();
}
