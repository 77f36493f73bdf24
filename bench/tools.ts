// Tool figures: the sandbox check every file-tool call pays, and search_files over a 10,000-file workspace.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTools } from '../adapters/tools/build-tools.js';
import { defaultSandbox, type SandboxPolicy } from '../adapters/tools/options.js';
import { Sandbox } from '../adapters/tools/sandbox/sandbox.js';
import type { ToolContext } from '../adapters/tools/tool.js';
import { percentile, round, type BenchRow } from './row.js';

const CHECKS = 20_000;
const FILES = 10_000;
const FILES_PER_DIR = 100;
const SEARCH_RUNS = 5;

/** The paths a turn typically names: plain, nested, missing, through a link, protected, outside. */
const PATHS = ['notes.md', 'src/deep/a/b/c/file.ts', 'missing/new.txt', 'link/file.ts', '.env', '../outside.txt', '/etc/passwd'];

function pathCheckMicros(policy: SandboxPolicy): number {
  const sandbox = new Sandbox(policy);
  const samples: number[] = [];
  for (let i = 0; i < CHECKS; i++) {
    const path = PATHS[i % PATHS.length]!;
    const started = performance.now();
    try {
      sandbox.resolve(path, i % 2 === 0 ? 'read' : 'write');
    } catch {
      // Refusals are part of the mix; their cost is what is measured.
    }
    samples.push((performance.now() - started) * 1000);
  }
  return round(percentile(samples.sort((a, b) => a - b), 50));
}

function fillWorkspace(workspace: string): void {
  for (let i = 0; i < FILES; i++) {
    const dir = join(workspace, 'src', `d${Math.floor(i / FILES_PER_DIR)}`);
    if (i % FILES_PER_DIR === 0) mkdirSync(dir, { recursive: true });
    const needle = i % 1000 === 0 ? 'const needle = true;\n' : '';
    writeFileSync(join(dir, `f${i}.ts`), `// file ${i}\nexport const value${i} = ${i};\n${needle}`.repeat(4));
  }
}

async function searchMillis(policy: SandboxPolicy): Promise<number> {
  const registry = buildTools({ sandbox: policy });
  const context: ToolContext = {
    agent: 'bench', session: 'sk_v1_bench', sessionKey: 'bench', channel: 'cli', chat: 'bench', remote: false,
    workspace: policy.workspace, signal: new AbortController().signal,
  };
  const samples: number[] = [];
  for (let i = 0; i < SEARCH_RUNS; i++) {
    const started = performance.now();
    const result = await registry.execute('search_files', { pattern: 'needle = true' }, context);
    samples.push(performance.now() - started);
    if (!result.ok || result.content.split('\n').length !== 40) throw new Error(`search_files bench found the wrong matches: ${result.content.slice(0, 200)}`);
  }
  return round(percentile(samples.sort((a, b) => a - b), 50));
}

export async function bench(): Promise<BenchRow[]> {
  const root = mkdtempSync(join(tmpdir(), 'tern-bench-tools-'));
  try {
    const workspace = join(root, 'home', 'workspace');
    mkdirSync(join(workspace, 'src', 'deep', 'a', 'b', 'c'), { recursive: true });
    symlinkSync(join(workspace, 'src'), join(workspace, 'link'));
    const policy = defaultSandbox(workspace, join(root, 'home'), join(root, 'user'));
    const pathCheck = pathCheckMicros(policy);
    fillWorkspace(workspace);
    return [
      { name: 'tools.path_check_us', value: pathCheck, unit: 'µs (p50 per sandbox check)' },
      { name: 'tools.search_files_10k_ms', value: await searchMillis(policy), unit: 'ms (p50, regex over 10,000 files)' },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
