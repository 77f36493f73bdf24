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
  'curl https://wttr.in/x',
  'python3 scripts/run.py',
  'ls 2>/dev/null',
  'ls -la',
  'echo hello',
  'cat a.txt',
  'grep -r foo .',
  'git status',
  'npm test',
  'node -e "console.log(1)"',
  'rm a.txt',
  'rm -r build',
  'rm -f a.txt',
  'mkdir -p out/dir',
  'echo x > out.txt',
  'ls > /dev/null 2>&1',
  'make &>/dev/null',
  'wc -l < a.txt',
  "sed -i 's/a/b/' a.txt",
  "awk '{print $1}' a.txt",
  "find . -name '*.ts'",
  'tar czf out.tgz sub',
  '/usr/bin/env python3 scripts/run.py',
  '/bin/ls sub',
  'echo $HOME',
  'cat $PWD/a.txt',
  'echo shutdown',
  'git log --format=%H',
  'grep reboot a.txt',
  'echo "rm -rf is dangerous"',
  'clang-format -i a.c',
  'npx prettier --check .',
  'dd --version',
  'curl -s "https://api.example.com/v1/x?a=1&b=2"',
  'wget -qO- https://example.com',
  'python3 -c "print(1)"',
  'cd sub && ls',
  'ls ./sub',
  'cat sub/../a.txt',
  'date -u',
  'echo a | tr a b',
  'export A=1; echo $A',
  'git clone https://github.com/a/b.git',
  'grep -E "^/api/" a.txt',
  'ls sub/*.txt',
  'echo done >> log.txt',
  'cat /dev/null > a.txt',
  'head -c 10 /dev/urandom | base64',
  'format_code.sh --help',
  'npm run format',
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
  for (const command of ['cat /etc/hostname', 'ls ..', 'cp a.txt /tmp/x'])
    assert.equal(guard.check(command, workspace, false), { allowed: true }, command);
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
isolated(
  'compiling, git, python scripts, pipes and archives inside the workspace work as they would outside',
  async () => {
    const f = toolsFixture((policy) => ({
      exec: { isolation: 'bwrap' },
      sandbox: { ...policy, allowReadPaths: [join(policy.home, '..', 'shared')] },
    }));
    mkdirSync(join(f.root, 'shared'));
    writeFileSync(join(f.root, 'shared', 'data.csv'), 'a,b\n1,2\n');
    writeFileSync(join(f.workspace, 'a.txt'), 'alpha\n');
    mkdirSync(join(f.workspace, 'scripts'));
    writeFileSync(join(f.workspace, 'scripts', 'run.py'), 'import sys\nprint(sum(int(x) for x in sys.argv[1:]))\n');
    const cases: [command: string, output: string][] = [
      ["printf 'int main(void){return 0;}' > t.c && cc t.c -o t && ./t && echo compiled", 'compiled\n'],
      ["printf 'all:\\n\\t@echo made\\n' > Makefile && make", 'made\n'],
      [
        'git init -q repo && cd repo && echo hi > f && git add f && ' +
          'git -c user.name=t -c user.email=t@example.com commit -qm first && git log --format=%s',
        'first\n',
      ],
      ['python3 scripts/run.py 1 2 3', '6\n'],
      ['python3 -c "import sys; print(sys.version_info[0])"', '3\n'],
      ['node -e "process.stdout.write(String(1 + 1))" 2> /dev/null', '2'],
      ['npm --version > /dev/null && echo npm', 'npm\n'],
      ['cat a.txt | tr a-z A-Z | rev', 'AHPLA\n'],
      ["sed -i 's/alpha/beta/' a.txt && cat a.txt", 'beta\n'],
      ['mkdir -p out/dir && echo x > out/dir/f && ls out/dir', 'f\n'],
      ['tar czf out.tgz out && tar tzf out.tgz', 'out/\nout/dir/\nout/dir/f\n'],
      [
        'mkdir -p build && touch build/x && rm -r build && ls',
        'Makefile\na.txt\nout\nout.tgz\nrepo\nscripts\nt\nt.c\n',
      ],
      ['echo done >> f.txt && cat f.txt', 'done\n'],
      ['head -c 10 /dev/urandom | base64 | wc -c', '17\n'],
      [`wc -l < ${join(f.root, 'shared', 'data.csv')}`, '2\n'],
      ['echo $HOME > /dev/null; mktemp -d | grep -c ^/tmp/', '1\n'],
    ];
    for (const [command, output] of cases)
      assert.equal(await f.call('exec', { command }), { ok: true, content: output }, command);
    f.close();
  },
);

/**
 * A developer's day, each command with its exact output, through the real tool path (the guard with isolation on,
 * then bubblewrap). Run in batches: each case in a subshell of its own after a marker, its exit status after it.
 */
const DAY: Array<[command: string, output: string]> = [
  ['git init -q proj && echo ok', 'ok\n'],
  [
    'cd proj && git config user.email dev@example.com && ' +
      'git config user.name Dev && git config init.defaultBranch main && echo ok',
    'ok\n',
  ],
  [
    "cd proj && printf 'hello\\n' > README.md && git add README.md && git commit -qm 'first' && git log --format=%s",
    'first\n',
  ],
  ['cd proj && git status --porcelain | wc -l', '0\n'],
  [
    "cd proj && printf 'hello world\\n' > README.md && git diff --stat | tail -1",
    ' 1 file changed, 1 insertion(+), 1 deletion(-)\n',
  ],
  ['cd proj && git stash -q && cat README.md && git stash pop -q && cat README.md', 'hello\nhello world\n'],
  ['cd proj && git checkout -qb feature && git branch --show-current', 'feature\n'],
  ["cd proj && git commit -qam 'second' && git log --format=%s | head -2", 'second\nfirst\n'],
  ['cd proj && git rev-list --count HEAD', '2\n'],
  ['cd proj && git grep -c hello', 'README.md:1\n'],
  // npm's update notice reaches stderr when a newer npm exists and its registry check beats the exit: a race,
  // not the command's output, so it is turned off.
  ['npm init -y --no-update-notifier > /dev/null && node -p "require(\'./package.json\').version"', '1.0.0\n'],
  [
    'npm pkg set scripts.greet="echo hi from npm" --no-update-notifier && npm run -s greet --no-update-notifier',
    'hi from npm\n',
  ],
  ['printf \'console.log([1, 2, 3].map((n) => n * 2).join(","))\\n\' > double.js && node double.js', '2,4,6\n'],
  ['node -e "console.log(require(\'os\').homedir() === process.env.HOME)"', 'true\n'],
  [
    'printf \'import json, sys\\nprint(json.dumps({"n": len(sys.argv) - 1}))\\n\' > count.py && python3 count.py a b c',
    '{"n": 3}\n',
  ],
  [
    "python3 -c \"import sqlite3; c = sqlite3.connect('db.sqlite'); c.execute('create table t (x)'); " +
      "c.execute('insert into t values (7)'); c.commit(); print(c.execute('select x from t').fetchone()[0])\"",
    '7\n',
  ],
  [
    'python3 -c "import tempfile, os; d = tempfile.mkdtemp(); print(d.startswith(\'/tmp/\'), os.path.isdir(d))"',
    'True True\n',
  ],
  ['python3 -c "import multiprocessing as m; print(m.Pool(2).map(abs, [-1, -2]))"', '[1, 2]\n'],
  [
    'printf \'#include <stdio.h>\\nint main(void){puts("built");return 0;}\\n\' > hello.c && ' +
      'cc -O2 -o hello hello.c && ./hello',
    'built\n',
  ],
  [
    "printf 'all: out/a.txt\\nout/a.txt:\\n\\tmkdir -p out && echo made > $@\\n" +
      "clean:\\n\\trm -rf out\\n.PHONY: clean\\n' > Makefile && make -s && cat out/a.txt",
    'made\n',
  ],
  ['make -s clean && ls out 2>&1 | head -1', "ls: cannot access 'out': No such file or directory\n"],
  ['mkdir -p src/lib && for n in a b c; do echo "$n" > "src/lib/$n.txt"; done && ls src/lib', 'a.txt\nb.txt\nc.txt\n'],
  ['tar czf src.tgz src && tar tzf src.tgz | sort', 'src/\nsrc/lib/\nsrc/lib/a.txt\nsrc/lib/b.txt\nsrc/lib/c.txt\n'],
  ['mkdir -p unpacked && tar xzf src.tgz -C unpacked && cat unpacked/src/lib/b.txt', 'b\n'],
  ['gzip -k src/lib/a.txt && gzip -dc src/lib/a.txt.gz', 'a\n'],
  ["sed -i 's/^b$/bee/' src/lib/b.txt && cat src/lib/b.txt", 'bee\n'],
  ["awk '{ total += length($0) } END { print total }' src/lib/a.txt src/lib/b.txt", '4\n'],
  ['grep -rl bee src', 'src/lib/b.txt\n'],
  ["find src -name '*.txt' | sort", 'src/lib/a.txt\nsrc/lib/b.txt\nsrc/lib/c.txt\n'],
  ["find src -name '*.gz' -delete && ls src/lib", 'a.txt\nb.txt\nc.txt\n'],
  ["find src -type f -print0 | xargs -0 cat | sort | tr '\\n' ' '", 'a bee c '],
  ['cp -r src src-copy && diff -r src src-copy && echo same', 'same\n'],
  [
    'echo changed > src-copy/lib/c.txt && diff -u src/lib/c.txt src-copy/lib/c.txt > c.patch; ' +
      'patch -s src/lib/c.txt < c.patch && cat src/lib/c.txt',
    'changed\n',
  ],
  ['mv src-copy src-moved && ls -d src-*', 'src-moved\n'],
  ['ln -s src/lib/a.txt link.txt && cat link.txt', 'a\n'],
  ['printf \'#!/bin/sh\\necho "script: $1"\\n\' > run.sh && chmod +x run.sh && ./run.sh go', 'script: go\n'],
  ['sh -c \'echo "nested $((6 * 7))"\'', 'nested 42\n'],
  ["cat <<'EOF' > notes.md\n# Notes\nline\nEOF\nwc -l < notes.md", '2\n'],
  ["printf 'b\\na\\nb\\n' | sort | uniq -c | awk '{print $1, $2}'", '1 a\n2 b\n'],
  ['echo -n abc | sha256sum | cut -c1-16', 'ba7816bf8f01cfea\n'],
  ['echo aGVsbG8= | base64 -d', 'hello'],
  ['head -c 1000 /dev/urandom > rand.bin && wc -c < rand.bin', '1000\n'],
  [
    "printf '%s\\n' 3 1 2 | sort -n | paste -sd+ | bc 2>/dev/null || " +
      "printf '%s\\n' 3 1 2 | awk '{s += $1} END {print s}'",
    '6\n',
  ],
  ['date -u -d @0 +%Y-%m-%d', '1970-01-01\n'],
  ['env | grep -c "^HOME="', '1\n'],
  ['echo "$HOME" | grep -c "^/"', '1\n'],
  ['mktemp -d | grep -c "^/tmp/"', '1\n'],
  ['touch stamp && test -f stamp && rm stamp && test ! -e stamp && echo gone', 'gone\n'],
  [
    'mkdir -p build/obj node_modules/pkg && touch build/obj/x.o && ' +
      'rm -rf build node_modules && ls -d build node_modules 2>&1 | wc -l',
    '2\n',
  ],
  ["find . -maxdepth 1 -name '*.bin' -delete && ls *.bin 2>/dev/null | wc -l", '0\n'],
  ['ulimit -n | grep -c "^[0-9]"', '1\n'],
  ['seq 1 300 | xargs -n 100 echo | wc -l', '3\n'],
  ['(sleep 0.1; echo background) & wait; echo done', 'background\ndone\n'],
  [
    'python3 -m venv --without-pip venv && venv/bin/python -c "import sys; print(sys.prefix.endswith(\'venv\'))"',
    'True\n',
  ],
  [
    "python3 -c \"import zipfile; z = zipfile.ZipFile('a.zip', 'w'); z.writestr('x.txt', 'zipped'); " +
      "z.close(); print(zipfile.ZipFile('a.zip').read('x.txt').decode())\"",
    'zipped\n',
  ],
  ['curl --version | head -c 4', 'curl'],
];

/** The case whose batch output starts at `@@i`, and its exit status from the `@@rc=n` line after it. */
function parseBatch(output: string): Map<number, { output: string; rc: number }> {
  const cases = new Map<number, { output: string; rc: number }>();
  for (const part of output.split(/^@@(?=\d+\n)/m).slice(1)) {
    const [, index, body, rc] = /^(\d+)\n([\s\S]*)@@rc=(\d+)\n$/.exec(part) ?? [];
    if (index !== undefined) cases.set(Number(index), { output: body!, rc: Number(rc) });
  }
  return cases;
}

isolated(
  `${DAY.length} developer commands pass the guard one by one and run in bubblewrap with their exact output`,
  async () => {
    assert.ok(DAY.length >= 50);
    const f = toolsFixture(() => ({ exec: { isolation: 'bwrap' } }));
    const guard = new ExecGuard({ ...DEFAULT_EXEC, log: () => {} }, new Sandbox(f.policy));
    for (const [command] of DAY)
      assert.equal(guard.check(command, f.workspace, false, true), { allowed: true }, command);
    const seen: string[] = [];
    const expected: string[] = [];
    for (let start = 0; start < DAY.length; start += 12) {
      const batch = DAY.slice(start, start + 12).map(
        ([command], i) => `echo "@@${start + i}"; ( ${command}\n) 2>&1; echo "@@rc=$?"`,
      );
      // The test runner sets FORCE_COLOR and NO_COLOR both, which node warns about on every start.
      const result = await f.call('exec', { command: ['unset FORCE_COLOR', ...batch].join('\n'), timeout_seconds: 60 });
      assert.ok(result.ok, result.content);
      const cases = parseBatch(result.content);
      DAY.slice(start, start + 12).forEach(([command, output], i) => {
        const got = cases.get(start + i);
        seen.push(`${command}\n=> ${JSON.stringify(got?.output)} rc ${got?.rc}`);
        expected.push(`${command}\n=> ${JSON.stringify(output)} rc 0`);
      });
    }
    assert.equal(seen, expected);
    f.close();
  },
);
isolated.run();
