// Tool figures: the sandbox check every file-tool call pays, search_files over a 10,000-file workspace, and one
// `echo hi` through the exec tool without isolation and inside bubblewrap.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTools } from '../adapters/tools/build-tools.js';
import { defaultSandbox, type ExecOptions, type SandboxPolicy } from '../adapters/tools/options.js';
import { Sandbox } from '../adapters/tools/sandbox/sandbox.js';
import type { ToolContext } from '../adapters/tools/tool.js';
import { percentile, round, type BenchRow } from './row.js';

const CHECKS = 20_000;
const FILES = 10_000;
const FILES_PER_DIR = 100;
const SEARCH_RUNS = 5;
const EXEC_RUNS = 40;
const EXEC_WARMUP = 5;

/** The paths a turn typically names: plain, nested, missing, through a link, protected, outside. */
const PATHS = [
  'notes.md',
  'src/deep/a/b/c/file.ts',
  'missing/new.txt',
  'link/file.ts',
  '.env',
  '../outside.txt',
  '/etc/passwd',
];

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
  return round(
    percentile(
      samples.sort((a, b) => a - b),
      50,
    ),
  );
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
  const context = benchContext(policy.workspace);
  const samples: number[] = [];
  for (let i = 0; i < SEARCH_RUNS; i++) {
    const started = performance.now();
    const result = await registry.execute('search_files', { pattern: 'needle = true' }, context);
    samples.push(performance.now() - started);
    if (!result.ok || result.content.split('\n').length !== 40)
      throw new Error(`search_files bench found the wrong matches: ${result.content.slice(0, 200)}`);
  }
  return round(
    percentile(
      samples.sort((a, b) => a - b),
      50,
    ),
  );
}

function benchContext(workspace: string): ToolContext {
  return {
    agent: 'bench',
    session: 'sk_v1_bench',
    sessionKey: 'bench',
    channel: 'cli',
    chat: 'bench',
    remote: false,
    workspace,
    signal: new AbortController().signal,
  };
}

/** The whole exec tool call (guard, sandbox set-up, the command, the output filter) for `echo hi`. */
async function execMillis(policy: SandboxPolicy, isolation: ExecOptions['isolation']): Promise<number> {
  const registry = buildTools({ sandbox: policy, exec: { isolation } });
  const samples: number[] = [];
  for (let i = 0; i < EXEC_WARMUP + EXEC_RUNS; i++) {
    const started = performance.now();
    const result = await registry.execute('exec', { command: 'echo hi' }, benchContext(policy.workspace));
    if (i >= EXEC_WARMUP) samples.push(performance.now() - started);
    if (!result.ok || result.content !== 'hi\n') throw new Error(`exec bench (${isolation}) got: ${result.content}`);
  }
  return round(
    percentile(
      samples.sort((a, b) => a - b),
      50,
    ),
  );
}

export async function bench(): Promise<BenchRow[]> {
  const root = mkdtempSync(join(tmpdir(), 'tern-bench-tools-'));
  try {
    const workspace = join(root, 'home', 'workspace');
    mkdirSync(join(workspace, 'src', 'deep', 'a', 'b', 'c'), { recursive: true });
    symlinkSync(join(workspace, 'src'), join(workspace, 'link'));
    const policy = defaultSandbox(workspace, join(root, 'home'), join(root, 'user'));
    const pathCheck = pathCheckMicros(policy);
    const execPlain = await execMillis(policy, 'off');
    const execIsolated = await execMillis(policy, 'bwrap');
    fillWorkspace(workspace);
    return [
      { name: 'tools.path_check_us', value: pathCheck, unit: 'µs (p50 per sandbox check)' },
      {
        name: 'tools.search_files_10k_ms',
        value: await searchMillis(policy),
        unit: 'ms (p50, regex over 10,000 files)',
      },
      { name: 'tools.exec_plain_ms', value: execPlain, unit: 'ms (p50 of exec "echo hi", isolation off)' },
      { name: 'tools.exec_isolated_ms', value: execIsolated, unit: 'ms (p50 of exec "echo hi" inside bubblewrap)' },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
