import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { McpOptions, McpServerConfig } from '../../adapters/mcp/options.js';
import { freePort } from './free-port.js';
export { freePort };

const root = fileURLToPath(new URL('../..', import.meta.url));
export const everythingEntry = `${root}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;
export const filesystemEntry = `${root}node_modules/@modelcontextprotocol/server-filesystem/dist/index.js`;

export function everythingStdio(extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { enabled: true, command: process.execPath, args: [everythingEntry, 'stdio'], ...extra };
}

export function filesystemStdio(dir: string): McpServerConfig {
  return { enabled: true, type: 'stdio', command: process.execPath, args: [filesystemEntry, dir] };
}

export function mcpOptions(servers: Record<string, McpServerConfig>, extra: Partial<McpOptions> = {}): McpOptions {
  return {
    enabled: true,
    discovery: { enabled: false, ttl: 5, max_search_results: 5, use_bm25: true, use_regex: false },
    servers,
    max_inline_text_chars: 16000,
    ...extra,
  };
}

export interface RunningServer {
  url: string;
  stop(): Promise<void>;
}

/** The everything server's streamable HTTP (`/mcp`) or SSE (`/sse`) transport, as its own process. */
export async function startEverythingRemote(kind: 'streamableHttp' | 'sse'): Promise<RunningServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [everythingEntry, kind], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`everything ${kind} did not start`)), 20_000);
    const seen = (chunk: Buffer) => {
      if (/running on port|listening/i.test(chunk.toString())) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', seen);
    child.stderr?.on('data', seen);
    child.once('exit', (code) => reject(new Error(`everything ${kind} exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}${kind === 'sse' ? '/sse' : '/mcp'}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
