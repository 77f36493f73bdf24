import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import {
  createMessageConnection,
  ErrorCodes,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node.js';
import { ProviderError } from './errors.js';

/** The peer runtime's names: `grpc` reaches a running headless server, `stdio` starts one per connection. */
export type CopilotConnectMode = 'grpc' | 'stdio';

/** The protocol versions of the Copilot CLI's server this client speaks (the SDK's `connect` answer). */
const PROTOCOL_VERSIONS = { min: 3, max: 3 };

export interface CopilotLink {
  rpc: MessageConnection;
  close(): void;
}

/** `localhost:4321` (the peer's form) or `http://localhost:4321`: the server's host and port. */
function hostAndPort(apiBase: string): { host: string; port: number } {
  const url = new URL(/^[a-z]+:\/\//i.test(apiBase) ? apiBase : `tcp://${apiBase}`);
  return { host: url.hostname || 'localhost', port: Number(url.port || 4321) };
}

const unreachable = (why: string) =>
  new ProviderError({
    code: 'network',
    message: `cannot reach the Copilot CLI (${why}); start it with \`copilot --headless --port 4321\``,
  });

function overSocket(apiBase: string): Promise<{ reader: Socket; writer: Socket; close(): void }> {
  const { host, port } = hostAndPort(apiBase);
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    socket.once('error', (error) => reject(unreachable(`${host}:${port}: ${error.message}`)));
    socket.once('connect', () => resolve({ reader: socket, writer: socket, close: () => socket.destroy() }));
  });
}

function overStdio(command: string): { reader: NodeJS.ReadableStream; writer: NodeJS.WritableStream; close(): void } {
  const child: ChildProcess = spawn(command, ['--headless', '--no-auto-update', '--stdio'], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  child.on('error', () => undefined);
  return { reader: child.stdout!, writer: child.stdin!, close: () => child.kill() };
}

/** Opens a JSON-RPC connection to the Copilot CLI's server and checks it speaks a protocol version we know. */
export async function openCopilot(
  mode: CopilotConnectMode,
  apiBase: string,
  command = 'copilot',
): Promise<CopilotLink> {
  const streams = mode === 'stdio' ? overStdio(command) : await overSocket(apiBase);
  const rpc = createMessageConnection(new StreamMessageReader(streams.reader), new StreamMessageWriter(streams.writer));
  const link = {
    rpc,
    close() {
      rpc.dispose();
      streams.close();
    },
  };
  rpc.onError(() => undefined);
  rpc.listen();
  try {
    const version = await handshake(rpc, mode);
    if (version === undefined || version < PROTOCOL_VERSIONS.min || version > PROTOCOL_VERSIONS.max)
      throw new ProviderError({
        code: 'bad_request',
        message:
          `the Copilot CLI speaks protocol ${version ?? '(none)'}; ` +
          `Tern speaks ${PROTOCOL_VERSIONS.max}: update it`,
      });
    return link;
  } catch (error) {
    link.close();
    throw error;
  }
}

async function handshake(rpc: MessageConnection, mode: CopilotConnectMode): Promise<number | undefined> {
  const closed = new Promise<never>((_, reject) =>
    rpc.onClose(() => reject(unreachable(mode === 'stdio' ? '`copilot` ended at once' : 'the connection closed'))),
  );
  closed.catch(() => undefined);
  try {
    const answer = await Promise.race([
      rpc.sendRequest<{ protocolVersion?: number }>('connect', { supportedTaskKinds: ['agent'] }),
      closed,
    ]);
    return answer.protocolVersion;
  } catch (error) {
    // Older servers have no `connect`; their `ping` tells the version.
    if (!(error instanceof ResponseError) || error.code !== ErrorCodes.MethodNotFound) throw error;
    const answer = await Promise.race([
      rpc.sendRequest<{ protocolVersion?: number }>('ping', { message: 'tern' }),
      closed,
    ]);
    return answer.protocolVersion;
  }
}
