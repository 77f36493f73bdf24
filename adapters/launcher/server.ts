import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLauncherApp, type LauncherApp, type LauncherOptions } from './app.js';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 18800;

export interface RunningLauncher extends LauncherApp {
  url: string;
  server: Server;
}

export type StartOptions = LauncherOptions & { host?: string; port?: number };

function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

function urlOf(address: AddressInfo): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/** Starts the launcher on host:port (port 0 picks a free one); `close` ends open connections and the auth store. */
export async function startLauncher(options: StartOptions): Promise<RunningLauncher> {
  const launcher = await createLauncherApp(options);
  const server = createServer(launcher.app);
  try {
    const address = await listen(server, options.host ?? DEFAULT_HOST, options.port ?? DEFAULT_PORT);
    return {
      ...launcher,
      url: urlOf(address),
      server,
      async close() {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await launcher.close();
      },
    };
  } catch (error) {
    await launcher.close();
    throw error;
  }
}
