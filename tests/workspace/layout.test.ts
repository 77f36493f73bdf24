import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureWorkspace, WorkspaceFiles } from '../../store/workspace.js';

const LAYOUT = [
  'sessions/',
  'memory/',
  'state/',
  'cron/',
  'skills/',
  'AGENT.md',
  'SOUL.md',
  'IDENTITY.md',
  'USER.md',
  'HEARTBEAT.md',
  'memory/MEMORY.md',
];

test('a new workspace gets the layout of the spec and says what it created', () => {
  const parent = mkdtempSync(join(tmpdir(), 'tern-'));
  const root = join(parent, 'workspace');
  assert.equal(ensureWorkspace(root), LAYOUT);
  for (const entry of LAYOUT) assert.ok(existsSync(join(root, entry)), entry);
  rmSync(parent, { recursive: true, force: true });
});

test('starter texts are useful: AGENT.md has valid frontmatter, HEARTBEAT.md explains HEARTBEAT_OK', () => {
  const root = mkdtempSync(join(tmpdir(), 'tern-'));
  ensureWorkspace(root);
  const files = new WorkspaceFiles(root);
  assert.equal(files.agent().frontmatter, {
    name: 'Tern',
    description: 'a helpful assistant that works in this workspace',
  });
  assert.match(files.agent().body, /^<!-- How this agent works\. [\s\S]*-->\n# How to work/);
  assert.match(files.text('heartbeat'), /HEARTBEAT_OK/);
  assert.match(files.text('memory'), /^# Memory/);
  rmSync(root, { recursive: true, force: true });
});

test('an existing workspace is never overwritten; only what is missing is created', () => {
  const root = mkdtempSync(join(tmpdir(), 'tern-'));
  writeFileSync(join(root, 'SOUL.md'), 'my own soul');
  mkdirSync(join(root, 'memory'));
  writeFileSync(join(root, 'memory', 'MEMORY.md'), 'remember this');
  const created = ensureWorkspace(root);
  assert.equal(
    created,
    LAYOUT.filter((e) => !['SOUL.md', 'memory/', 'memory/MEMORY.md'].includes(e)),
  );
  assert.is(readFileSync(join(root, 'SOUL.md'), 'utf8'), 'my own soul');
  assert.is(readFileSync(join(root, 'memory', 'MEMORY.md'), 'utf8'), 'remember this');
  assert.equal(ensureWorkspace(root), []);
  rmSync(root, { recursive: true, force: true });
});

test.run();
