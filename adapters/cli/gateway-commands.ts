import { Writable } from 'node:stream';
import type { ControlHost, GatewayCommandRunner } from '../../actors/gateway/control-service.js';
import type { CommandSpec } from './command.js';
import { runParsed } from './run-command.js';

/** Output a command writes, sent on as it is written. */
function forwarding(write: (text: string) => void): Writable {
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      write(chunk.toString());
      done();
    },
  });
}

/**
 * How a gateway runs a `tern` command for a client (`CommandSpec.inGateway`): the same command, parsed the same way,
 * with the gateway's log, bus and engine at hand (`CommandContext.gateway`) and its output sent back. A command not
 * marked for it is refused: the socket runs nothing else.
 */
export function gatewayCommands(host: ControlHost, commands: readonly CommandSpec[]): GatewayCommandRunner {
  return async ({ command, argv, cwd }, io) => {
    const spec = commands.find((c) => c.name === command);
    if (!spec?.inGateway) {
      io.write('stderr', `tern: ${command} does not run in the gateway\n`);
      return 2;
    }
    const stdout = forwarding((text) => io.write('stdout', text));
    const stderr = forwarding((text) => io.write('stderr', text));
    return runParsed(spec, argv, { stdout, stderr, env: process.env, cwd, signal: io.signal, gateway: host, commands });
  };
}
