import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ExecGuard } from '../../adapters/tools/exec/exec-guard.js';
import { DEFAULT_EXEC, type ExecOptions, type SandboxPolicy } from '../../adapters/tools/options.js';
import { Sandbox } from '../../adapters/tools/sandbox/sandbox.js';
import { layAttackWorkspace } from '../support/tools-attack-workspace.js';
import { toolsFixture } from '../support/tools-fixture.js';

const extraRead = 'extra-read';
const extraWrite = 'extra-write';
const fixture = toolsFixture((policy) => ({
  sandbox: {
    ...policy,
    allowReadPaths: [join(policy.home, '..', extraRead)],
    allowWritePaths: [join(policy.home, '..', extraWrite)],
  },
}));
const { workspace, root } = fixture;
layAttackWorkspace(root, workspace, fixture.home, fixture.userHome);
mkdirSync(join(root, extraRead));
mkdirSync(join(root, extraWrite));
writeFileSync(join(root, extraRead, 'shared.txt'), 'shared\n');
mkdirSync(join(workspace, 'scripts'));
mkdirSync(join(workspace, 'docs', 'sessions'), { recursive: true });
mkdirSync(join(workspace, '.config', 'nvim'), { recursive: true });
writeFileSync(join(workspace, 'scripts', 'run.py'), 'print(1)\n');
symlinkSync(join(workspace, 'a.txt'), join(workspace, 'alias.txt'));

const fileCases: [tool: string, args: Record<string, unknown>][] = [
  ['read_file', { path: 'a.txt' }],
  ['read_file', { path: './a.txt' }],
  ['read_file', { path: 'sub/b.txt' }],
  ['read_file', { path: 'sub/../a.txt' }],
  ['read_file', { path: join(workspace, 'a.txt') }],
  ['read_file', { path: 'alias.txt' }],
  ['read_file', { path: join(root, extraRead, 'shared.txt') }],
  ['read_file', { path: join(root, extraWrite, 'made.txt') }],
  ['write_file', { path: '.env.example', content: 'KEY=\n', overwrite: true }],
  ['write_file', { path: 'notes.env', content: 'x' }],
  ['write_file', { path: 'env.txt', content: 'x' }],
  ['write_file', { path: '.environment', content: 'x' }],
  ['write_file', { path: 'my.ssh.txt', content: 'x' }],
  ['write_file', { path: 'ssh/config', content: 'x' }],
  ['write_file', { path: 'sessions.md', content: 'x' }],
  ['write_file', { path: 'docs/sessions/today.md', content: 'x' }],
  ['write_file', { path: 'config/gh.txt', content: 'x' }],
  ['write_file', { path: '.config/nvim/init.vim', content: 'x' }],
  ['write_file', { path: '.github/workflows/ci.yml', content: 'x' }],
  ['write_file', { path: 'security.yml', content: 'x' }],
  ['append_file', { path: 'a.txt', content: 'more\n' }],
  ['edit_file', { path: 'sub/b.txt', old_text: 'beta', new_text: 'gamma' }],
  ['list_dir', {}],
  ['list_dir', { path: 'sub' }],
  ['search_files', { pattern: 'alpha' }],
  ['search_files', { pattern: '*.txt', mode: 'name' }],
  ['read_file', { path: 'docs/sessions/today.md' }],
];

const commands = [
  'curl https://wttr.in/x', 'python3 scripts/run.py', 'ls 2>/dev/null', 'ls -la', 'echo hello', 'cat a.txt', 'grep -r foo .',
  'git status', 'npm test', 'node -e "console.log(1)"', 'rm a.txt', 'rm -r build', 'rm -f a.txt', 'mkdir -p out/dir',
  'echo x > out.txt', 'ls > /dev/null 2>&1', 'make &>/dev/null', 'wc -l < a.txt', "sed -i 's/a/b/' a.txt",
  "awk '{print $1}' a.txt", "find . -name '*.ts'", 'tar czf out.tgz sub', '/usr/bin/env python3 scripts/run.py', '/bin/ls sub',
  'echo $HOME', 'cat $PWD/a.txt', 'echo shutdown', 'git log --format=%H', 'grep reboot a.txt', 'echo "rm -rf is dangerous"',
  'clang-format -i a.c', 'npx prettier --check .', 'dd --version', 'curl -s "https://api.example.com/v1/x?a=1&b=2"',
  'wget -qO- https://example.com', 'python3 -c "print(1)"', 'cd sub && ls', 'ls ./sub', 'cat sub/../a.txt', 'date -u',
  'echo a | tr a b', 'export A=1; echo $A', 'git clone https://github.com/a/b.git', 'grep -E "^/api/" a.txt', 'ls sub/*.txt',
  'echo done >> log.txt', 'cat /dev/null > a.txt', 'head -c 10 /dev/urandom | base64', 'format_code.sh --help', 'npm run format',
];

const files = suite('benign corpus: file tools');
files(`${fileCases.length} ordinary file operations succeed`, async () => {
  writeFileSync(join(root, extraWrite, 'made.txt'), 'made\n');
  for (const [tool, args] of fileCases) {
    const result = await fixture.call(tool, args);
    assert.ok(result.ok, `${tool} ${JSON.stringify(args)}: ${result.content}`);
  }
});
files('a file under allow_write_paths can be written', async () => {
  const result = await fixture.call('write_file', { path: join(root, extraWrite, 'new.txt'), content: 'x' });
  assert.equal(result, { ok: true, content: `wrote 1 bytes to ${join(root, extraWrite, 'new.txt')}` });
});
files.run();

function guardOf(policy: Partial<SandboxPolicy>, exec: Partial<ExecOptions> = {}): ExecGuard {
  return new ExecGuard({ ...DEFAULT_EXEC, log: () => {}, ...exec }, new Sandbox({ ...fixture.policy, ...policy }));
}

const exec = suite('benign corpus: exec');
exec(`${commands.length} ordinary commands pass the guard`, () => {
  const guard = guardOf({});
  for (const command of commands) assert.equal(guard.check(command, workspace, false), { allowed: true }, command);
});
exec('without restrict_to_workspace, paths outside the workspace are fine', () => {
  const guard = guardOf({ restrictToWorkspace: false });
  for (const command of ['cat /etc/hostname', 'ls ..', 'cp a.txt /tmp/x']) assert.equal(guard.check(command, workspace, false), { allowed: true }, command);
});
exec('custom_allow_patterns exempt a command from the deny patterns', () => {
  const guard = guardOf({}, { customAllowPatterns: ['^rm -rf build$'] });
  assert.equal(guard.check('rm -rf build', workspace, false), { allowed: true });
});
exec('enable_deny_patterns false lets a dangerous-looking command through', () => {
  assert.equal(guardOf({}, { enableDenyPatterns: false }).check('rm -rf build', workspace, false), { allowed: true });
});
exec('allow_remote lets a remote channel run commands', () => {
  assert.equal(guardOf({}, { allowRemote: true }).check('ls', workspace, true), { allowed: true });
});
exec.after(() => fixture.close());
exec.run();

/** Everyday work run for real inside the sandbox: none of it may fail because of isolation. */
const isolated = suite('benign corpus: exec inside bubblewrap');
isolated('compiling, git, python scripts, pipes and archives inside the workspace work as they would outside', async () => {
  const f = toolsFixture((policy) => ({ exec: { isolation: 'bwrap' }, sandbox: { ...policy, allowReadPaths: [join(policy.home, '..', 'shared')] } }));
  mkdirSync(join(f.root, 'shared'));
  writeFileSync(join(f.root, 'shared', 'data.csv'), 'a,b\n1,2\n');
  writeFileSync(join(f.workspace, 'a.txt'), 'alpha\n');
  mkdirSync(join(f.workspace, 'scripts'));
  writeFileSync(join(f.workspace, 'scripts', 'run.py'), 'import sys\nprint(sum(int(x) for x in sys.argv[1:]))\n');
  const cases: [command: string, output: string][] = [
    ["printf 'int main(void){return 0;}' > t.c && cc t.c -o t && ./t && echo compiled", 'compiled\n'],
    ["printf 'all:\\n\\t@echo made\\n' > Makefile && make", 'made\n'],
    ['git init -q repo && cd repo && echo hi > f && git add f && git -c user.name=t -c user.email=t@example.com commit -qm first && git log --format=%s', 'first\n'],
    ['python3 scripts/run.py 1 2 3', '6\n'],
    ['python3 -c "import sys; print(sys.version_info[0])"', '3\n'],
    ['node -e "process.stdout.write(String(1 + 1))" 2> /dev/null', '2'],
    ['npm --version > /dev/null && echo npm', 'npm\n'],
    ['cat a.txt | tr a-z A-Z | rev', 'AHPLA\n'],
    ["sed -i 's/alpha/beta/' a.txt && cat a.txt", 'beta\n'],
    ['mkdir -p out/dir && echo x > out/dir/f && ls out/dir', 'f\n'],
    ['tar czf out.tgz out && tar tzf out.tgz', 'out/\nout/dir/\nout/dir/f\n'],
    ['mkdir -p build && touch build/x && rm -r build && ls', 'Makefile\na.txt\nout\nout.tgz\nrepo\nscripts\nt\nt.c\n'],
    ['echo done >> f.txt && cat f.txt', 'done\n'],
    ['head -c 10 /dev/urandom | base64 | wc -c', '17\n'],
    [`wc -l < ${join(f.root, 'shared', 'data.csv')}`, '2\n'],
    ['echo $HOME > /dev/null; mktemp -d | grep -c ^/tmp/', '1\n'],
  ];
  for (const [command, output] of cases) assert.equal(await f.call('exec', { command }), { ok: true, content: output }, command);
  f.close();
});
isolated.run();
