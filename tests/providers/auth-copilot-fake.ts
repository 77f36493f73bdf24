// A fake of the Copilot CLI's headless server: JSON-RPC 2.0 with Content-Length framing, over TCP or stdio.
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node.js';

export interface CopilotCall {
  method: string;
  params: Record<string, unknown>;
}

export const COPILOT_ANSWER = 'Hi from Copilot';

/** Serves one client on these streams, telling `log` every request it gets. */
export function serveCopilot(
  reader: NodeJS.ReadableStream,
  writer: NodeJS.WritableStream,
  log: (call: CopilotCall) => void,
): void {
  const rpc = createMessageConnection(new StreamMessageReader(reader), new StreamMessageWriter(writer));
  const on = (method: string, answer: (params: Record<string, unknown>) => unknown) =>
    rpc.onRequest(method, (params: Record<string, unknown>) => {
      log({ method, params });
      return answer(params);
    });
  on('connect', () => ({ ok: true, protocolVersion: 3, version: '1.0.0-fake' }));
  on('auth.getStatus', () => ({
    isAuthenticated: true,
    authType: 'user',
    host: 'https://github.com',
    login: 'octocat',
  }));
  on('session.create', () => ({ sessionId: 'session-1', workspacePath: '/tmp' }));
  on('session.send', (params) => {
    const event = (type: string, data: Record<string, unknown>) =>
      void rpc.sendNotification('session.event', {
        sessionId: params.sessionId,
        event: { id: `e-${type}`, timestamp: new Date().toISOString(), type, data },
      });
    // The answer arrives as events after the request has been answered, as the CLI sends them.
    setImmediate(() => {
      event('assistant.message_delta', { messageId: 'm-1', deltaContent: 'Hi from ' });
      event('assistant.message_delta', { messageId: 'm-1', deltaContent: 'Copilot' });
      event('assistant.message', { messageId: 'm-1', content: COPILOT_ANSWER, toolRequests: [] });
      event('session.idle', {});
    });
    return { messageId: 'm-1' };
  });
  on('session.delete', () => ({ success: true }));
  rpc.listen();
}

export interface CopilotServer {
  port: number;
  calls: CopilotCall[];
  close(): Promise<void>;
}

/** `copilot --headless --port N` stood in for on a loopback port. */
export async function startCopilotServer(): Promise<CopilotServer> {
  const calls: CopilotCall[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    serveCopilot(socket, socket, (call) => calls.push(call));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    calls,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
