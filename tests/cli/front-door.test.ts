import { existsSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sessionIdOf, validateDraft } from '../../bus/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { lineReader, runCli, runCliAsync, startCli } from '../support/cli.js';
import { tempHome, type TempHome } from '../support/temp-home.js';

const test = suite<{ home: TempHome }>('tern front door');
test.before.each((ctx) => {
  ctx.home = tempHome();
});
test.after.each((ctx) => ctx.home.remove());

const version = (
  JSON.parse((await import('node:fs')).readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

async function seed(home: TempHome): Promise<void> {
  const log = EventLog.open(home.sessions);
  const key = 'v=1|agent=main|channel=cli|account=default|chat=direct:demo';
  for (let i = 1; i <= 6; i++) {
    const session = i <= 4 ? sessionIdOf(key) : 'sk_v1_other';
    log.append(
      validateDraft({
        type: i % 2 ? 'provider.chunk' : 'tool.requested',
        agent: 'main',
        session,
        turn: `t${i <= 3 ? 1 : 2}`,
        data: i % 2 ? { kind: 'text', delta: `d${i}` } : { call_id: `c${i}`, name: 'todo', arguments: {} },
      } as never),
    );
  }
  await log.flushed();
  log.close();
}

test('--help lists the working commands and exits 0', ({ home }) => {
  const { code, stdout } = runCli(['--help'], home.env);
  assert.is(code, 0);
  assert.match(stdout, /Usage: tern <command>/);
  assert.match(stdout, /\n  log +read the event log/);
  assert.match(stdout, /\n  version +print the version/);
});

test('a command --help shows its usage and options', ({ home }) => {
  const { code, stdout } = runCli(['log', '--help'], home.env);
  assert.is(code, 0);
  assert.match(stdout, /tern log \[--session KEY\]/);
  assert.match(stdout, /--follow/);
});

test('a reader that closes the pipe early ends the command quietly with its own exit code', async ({ home }) => {
  const child = startCli(['--help'], home.env);
  // Closed before the child starts writing, as `tern --help | head -0` does.
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  assert.equal({ code, stderr: stderr.replace(/^npm warn.*\n/gm, '') }, { code: 0, stderr: '' });
});

test('version prints the package version', ({ home }) => {
  assert.equal(runCli(['version'], home.env), { code: 0, stdout: `tern ${version}\n`, stderr: '' });
  assert.is(runCli(['--version'], home.env).stdout, `tern ${version}\n`);
});

const usageErrors: Array<[string[], RegExp]> = [
  [
    ['launch-rockets'],
    /^tern: unknown command "launch-rockets" \(it is not one of: .*log.*\)\. Run `tern --help`\.\n$/,
  ],
  [['log', '--bogus'], /^tern: wrong usage \(tern log has no option --bogus\)\. Run `tern help log`\.\n$/],
  [
    ['log', '--limt', '3'],
    /^tern: wrong usage \(tern log has no option --limt \(did you mean --limit\?\)\)\. Run `tern help log`\.\n$/,
  ],
  [['agent', '--script'], /^tern: wrong usage \(--script needs a value\)\. Run `tern help agent`\.\n$/],
  [['agent', '--json=yes', '-m', 'hi'], /^tern: wrong usage \(--json takes no value\)\. Run `tern help agent`\.\n$/],
  [
    ['log', '--limit', 'ten'],
    /^tern: wrong usage \(--limit takes a whole number, got "ten"\)\. Run `tern help log`\.\n$/,
  ],
];
for (const [args, message] of usageErrors) {
  test(`\`tern ${args.join(' ')}\` is a usage error: one line on stderr, exit 2`, ({ home }) => {
    const { code, stderr, stdout } = runCli(args, home.env);
    assert.is(code, 2);
    assert.match(stderr, message);
    assert.is(stdout, '');
  });
}

// Every command with subcommands says a missing or unknown one in the same words, with the ones it has.
const subcommands: Array<[string, string]> = [
  ['auth', 'login, logout, status'],
  ['cluster', 'status'],
  ['config', 'show, validate, path'],
  ['cron', 'list, add, remove, enable, disable'],
  ['mcp', 'list, show, add, remove, test, login'],
  ['pairing', 'list, approve, deny'],
  ['plugins', 'list, install, remove, enable, disable'],
  ['skills', 'list, search, install, remove, show, drafts, accept, reject'],
  ['tool', 'list, call'],
];
test('a missing or unknown subcommand is one usage line, the same for every command', async ({ home }) => {
  const asked = subcommands.flatMap(([command]) => [[command], [command, 'fly']]);
  const results = await Promise.all(asked.map((args) => runCliAsync(args, home.env)));
  assert.equal(
    results.map((r, i) => ({ args: asked[i]!.join(' '), code: r.code, stdout: r.stdout, stderr: r.stderr })),
    subcommands.flatMap(([command, allowed]) => [
      {
        args: command,
        code: 2,
        stdout: '',
        stderr:
          `tern: wrong usage (tern ${command} needs a subcommand (allowed: ${allowed})). ` +
          `Run \`tern ${command} --help\`.\n`,
      },
      {
        args: `${command} fly`,
        code: 2,
        stdout: '',
        stderr:
          `tern: wrong usage ("fly" is not a subcommand of tern ${command} (allowed: ${allowed})). ` +
          `Run \`tern ${command} --help\`.\n`,
      },
    ]),
  );
});

test('a usage error with --json is a JSON body on stdout', ({ home }) => {
  const { code, stdout } = runCli(['log', '--json', '--after=-3'], home.env);
  assert.is(code, 2);
  assert.equal(JSON.parse(stdout), {
    ok: false,
    error: { code: 'usage', message: 'wrong usage (--after takes a whole number, got "-3"). Run `tern help log`.' },
  });
});

test('log --json on a fresh home prints nothing, creates nothing and exits 0', ({ home }) => {
  assert.equal(runCli(['log', '--json'], home.env), { code: 0, stdout: '', stderr: '' });
  assert.not.ok(existsSync(home.sessions));
});

const filters: Array<[string, string[], number[]]> = [
  ['newest last', [], [1, 2, 3, 4, 5, 6]],
  ['limit keeps the newest', ['--limit', '2'], [5, 6]],
  ['after reads forward', ['--after', '2', '--limit', '2'], [3, 4]],
  [
    'session by readable key',
    ['--session', 'v=1|agent=main|channel=cli|account=default|chat=direct:demo'],
    [1, 2, 3, 4],
  ],
  ['session by id', ['--session', 'sk_v1_other'], [5, 6]],
  ['turn', ['--turn', 't1'], [1, 2, 3]],
  ['type glob', ['--type', 'tool.*'], [2, 4, 6]],
];
for (const [name, args, seqs] of filters) {
  test(`log --json: ${name}`, async ({ home }) => {
    await seed(home);
    const { code, stdout } = runCli(['log', '--json', ...args], home.env);
    assert.is(code, 0);
    assert.equal(
      stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { seq: number }).seq),
      seqs,
    );
  });
}

test('log prints one readable line per event', async ({ home }) => {
  await seed(home);
  const { stdout } = runCli(['log', '--limit', '1'], home.env);
  assert.match(
    stdout,
    new RegExp(
      /^ {6}6  \d{4}-\d\d-\d\dT[\d:.]+Z  tool\.requested {7}main sk_v1_other t2  /.source +
        /\{"call_id":"c6","name":"todo","arguments":\{"keys":\[\],"count":0\}\}\n$/.source,
    ),
  );
});

test('log --follow prints events another process appends while it runs', async ({ home }) => {
  await seed(home);
  const child = startCli(['log', '--follow', '--json', '--type', 'provider.*', '--limit', '1'], home.env);
  const reader = lineReader(child);
  const log = EventLog.open(home.sessions);
  try {
    const backlog = await reader.next(1);
    log.append(validateDraft({ type: 'provider.chunk', session: 'x', data: { kind: 'text', delta: 'live 1' } }));
    log.append(validateDraft({ type: 'turn.aborted', session: 'x', data: { reason: 'filtered out' } }));
    log.append(validateDraft({ type: 'provider.chunk', session: 'x', data: { kind: 'text', delta: 'live 2' } }));
    await log.flushed();
    const got = [...backlog, ...(await reader.next(2))].map((l) => JSON.parse(l) as { seq: number; data: unknown });
    assert.equal(
      got.map((e) => e.seq),
      [5, 7, 9],
    );
    assert.equal(got[2]!.data, { kind: 'text', delta: 'live 2' });
  } finally {
    child.kill('SIGINT');
    log.close();
  }
});

test.run();
