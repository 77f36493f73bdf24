import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTools, type ToolsOptions } from '../../adapters/tools/build-tools.js';
import { defaultSandbox, type SandboxPolicy } from '../../adapters/tools/options.js';
import type { ToolRegistry } from '../../adapters/tools/registry.js';
import type { ToolContext, ToolResult } from '../../adapters/tools/tool.js';

/** A temp AGENT_HOME with a workspace and a separate fake user home, removed by `close`. */
export interface ToolsFixture {
  root: string;
  home: string;
  workspace: string;
  userHome: string;
  policy: SandboxPolicy;
  registry: ToolRegistry;
  logged: string[];
  call(name: string, args: unknown, context?: Partial<ToolContext>): Promise<ToolResult>;
  close(): void;
}

export function contextFor(workspace: string, overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    agent: 'main',
    session: 'sk_v1_test',
    sessionKey: 'v=1|agent=main|channel=cli|account=default',
    channel: 'cli',
    chat: 'direct',
    remote: false,
    workspace,
    signal: new AbortController().signal,
    ...overrides,
  };
}

export function toolsFixture(build: (policy: SandboxPolicy) => Partial<ToolsOptions> = () => ({})): ToolsFixture {
  const root = mkdtempSync(join(tmpdir(), 'tern-'));
  const home = join(root, 'agent-home');
  const workspace = join(home, 'workspace');
  const userHome = join(root, 'user');
  mkdirSync(workspace, { recursive: true });
  mkdirSync(userHome, { recursive: true });
  const policy = defaultSandbox(workspace, home, userHome);
  const logged: string[] = [];
  const extra = build(policy);
  let registry: ToolRegistry;
  try {
    registry = buildTools({
      ...extra,
      sandbox: extra.sandbox ?? policy,
      exec: { log: (entry) => logged.push(`${entry.level}: ${entry.message}`), ...extra.exec },
    });
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  return {
    root,
    home,
    workspace,
    userHome,
    policy,
    registry,
    logged,
    call: (name, args, context) => registry.execute(name, args, contextFor(workspace, context)),
    close: () => rmSync(root, { recursive: true, force: true }),
  };
}
