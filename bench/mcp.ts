// MCP: BM25 discovery over 1000 tools (index build + one search, median of 50), and what the manager
// adds to a tool call over a direct SDK call to the same stdio server (median per call, 300 calls each).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Bm25Index } from '../adapters/mcp/bm25.js';
import { McpManager } from '../actors/mcp/manager.js';
import { percentile, round, type BenchRow } from './row.js';

const everything = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);
const VERBS = ['get', 'list', 'create', 'update', 'delete', 'search', 'sync', 'export'];
const NOUNS = [
  'issue',
  'file',
  'user',
  'invoice',
  'calendar',
  'message',
  'ticket',
  'report',
  'image',
  'repository',
  'page',
  'record',
];
const CALLS = 300;

function median(samples: number[]): number {
  return percentile(
    [...samples].sort((a, b) => a - b),
    50,
  );
}

function bm25Ms(): number {
  const documents = Array.from({ length: 1000 }, (_, i) => {
    const verb = VERBS[i % VERBS.length]!;
    const noun = NOUNS[(i * 7) % NOUNS.length]!;
    return {
      id: `mcp_server${i % 20}_${verb}_${noun}_${i}`,
      text: `${verb}_${noun}_${i} ${verb} a ${noun} in workspace ${i % 50} with options and filters`,
    };
  });
  const samples = Array.from({ length: 50 }, () => {
    const started = performance.now();
    new Bm25Index(documents).search('create invoice for a user', 5);
    return performance.now() - started;
  });
  return median(samples);
}

async function timed(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await call();
  return performance.now() - started;
}

/**
 * The median of paired differences, the two calls alternating: measured one after the other, the two medians
 * drifted with the machine and their difference came out negative.
 */
async function pairedOverhead(direct: () => Promise<unknown>, managed: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 20; i++) await Promise.all([direct(), managed()]);
  const differences: number[] = [];
  for (let i = 0; i < CALLS; i++) differences.push((await timed(managed)) - (await timed(direct)));
  return median(differences);
}

async function callOverheadMs(): Promise<number> {
  const home = mkdtempSync(join(tmpdir(), 'tern-'));
  const client = new Client({ name: 'bench', version: '1' });
  const manager = new McpManager({
    options: {
      enabled: true,
      discovery: { enabled: false, ttl: 5, max_search_results: 5, use_bm25: true, use_regex: false },
      servers: { everything: { enabled: true, command: process.execPath, args: [everything, 'stdio'] } },
      max_inline_text_chars: 16000,
    },
    workspace: join(home, 'workspace'),
    home,
  });
  try {
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [everything, 'stdio'], stderr: 'ignore' }),
    );
    manager.start();
    await manager.settled('everything');
    return await pairedOverhead(
      () => client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } }),
      () => manager.call('mcp_everything_get-sum', { a: 1, b: 2 }),
    );
  } finally {
    await client.close();
    await manager.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

export async function bench(): Promise<BenchRow[]> {
  return [
    { name: 'mcp.bm25_1000_tools_ms', value: round(bm25Ms(), 3), unit: 'ms' },
    { name: 'mcp.call_overhead_ms', value: round(await callOverheadMs(), 3), unit: 'ms' },
  ];
}
