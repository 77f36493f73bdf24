import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Lays out a workspace full of traps: links out of the workspace, link chains and loops, links to
 * protected files, and real credential files the tools must never show.
 */
export function layAttackWorkspace(root: string, workspace: string, home: string, userHome: string): string {
  const outside = join(root, 'outside');
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), 'outside secret');
  mkdirSync(join(workspace, 'sub'), { recursive: true });
  mkdirSync(join(workspace, '.ssh'), { recursive: true });
  mkdirSync(join(workspace, 'sessions'), { recursive: true });
  writeFileSync(join(workspace, 'a.txt'), 'alpha\n');
  writeFileSync(join(workspace, 'sub', 'b.txt'), 'beta\n');
  writeFileSync(join(workspace, '.env'), 'API_KEY=abc\n');
  writeFileSync(join(workspace, '.env.example'), 'API_KEY=\n');
  writeFileSync(join(workspace, '.ssh', 'id_rsa'), 'key\n');
  writeFileSync(join(workspace, 'sessions', 'log.txt'), 'history\n');
  symlinkSync('/etc', join(workspace, 'link_etc'));
  symlinkSync(outside, join(workspace, 'link_out'));
  symlinkSync(join(workspace, 'chain2'), join(workspace, 'chain1'));
  symlinkSync(join(workspace, 'chain3'), join(workspace, 'chain2'));
  symlinkSync(outside, join(workspace, 'chain3'));
  symlinkSync(join(workspace, 'loop_b'), join(workspace, 'loop_a'));
  symlinkSync(join(workspace, 'loop_a'), join(workspace, 'loop_b'));
  symlinkSync(join(workspace, 'self'), join(workspace, 'self'));
  symlinkSync(join(workspace, '.env'), join(workspace, 'notes.txt'));
  symlinkSync(join(workspace, '.ssh'), join(workspace, 'keys'));
  symlinkSync(join(outside, 'new.txt'), join(workspace, 'dangling'));
  symlinkSync(join(workspace, 'sessions'), join(workspace, 'history'));
  symlinkSync('../../../outside', join(workspace, 'sub', 'up'));
  mkdirSync(join(home, 'auth', 'mcp'), { recursive: true });
  writeFileSync(join(home, 'auth.json'), '{}');
  writeFileSync(join(home, 'auth', 'mcp', 'server.json'), '{}');
  mkdirSync(join(userHome, '.codex'), { recursive: true });
  writeFileSync(join(userHome, '.codex', 'auth.json'), '{}');
  return outside;
}
