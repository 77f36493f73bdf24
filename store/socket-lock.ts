import { createServer, type Server } from 'node:net';

/**
 * Takes a lock that is a listening socket at `address` (on Linux, a name in the abstract namespace): the kernel closes
 * it when its process ends however it ends, so the lock never outlives its holder. A local socket binds at `listen`,
 * so the caller knows at once: undefined while another process holds it. Closing the server releases it.
 */
export function bindSocketLock(address: string): Server | undefined {
  const server = createServer((socket) => socket.destroy());
  server.on('error', () => undefined);
  server.listen(address);
  if (server.listening) return server.unref();
  server.close();
  return undefined;
}
