// The README and docs/ are what users read first: these tests hold them to what #36 asked (a short README, pages
// people can read in a terminal, links that lead somewhere) and run the README's own examples through the real CLI,
// so a README that drifts from the code fails here rather than for a user.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadCheckedConfig } from '../../adapters/cli/load-config.js';
import { ConfigError } from '../../store/config/index.js';
import { repoRoot, runCliAsync } from '../support/cli.js';
import { startRuleModel, type RuleModel } from '../support/rule-model.js';
import { tempHome, type TempHome } from '../support/temp-home.js';
import { writeConfig } from '../support/turn-fixture.js';

const README = join(repoRoot, 'README.md');
const DOCS = join(repoRoot, 'docs');
const PAGES = [
  'README.md',
  'configuration.md',
  'channels.md',
  'tools-and-sandbox.md',
  'providers.md',
  'skills-and-evolution.md',
  'hooks-and-plugins.md',
  'memory.md',
  'cluster.md',
  'security.md',
  'architecture.md',
  'benchmarks.md',
];

const read = (path: string): string => readFileSync(path, 'utf8');
const docFiles = (): string[] => [
  README,
  ...readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(DOCS, f)),
];

/** The text outside fenced code blocks, where links and headings live. */
const prose = (text: string): string => text.replace(/^```[\s\S]*?^```/gm, '');

/** The fenced blocks of a language, in order. */
const blocks = (text: string, lang: string): string[] =>
  [...text.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\``, 'gm'))].map((m) => m[1]!);

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');

/** The README section under a `###` heading, up to the next heading of any level. */
function section(text: string, heading: string): string {
  const start = text.indexOf(`\n### ${heading}\n`);
  assert.ok(start >= 0, `README has no "### ${heading}" section`);
  const rest = text.slice(start + heading.length + 6);
  const end = rest.search(/\n#{2,3} /);
  return end < 0 ? rest : rest.slice(0, end);
}

const shape = suite('README and docs/');

shape('the README is at most 12 KB', () => {
  const bytes = Buffer.byteLength(read(README));
  assert.ok(bytes <= 12_288, `README.md is ${bytes} bytes`);
});

shape('every Markdown line of the README and docs/ is at most 120 characters', () => {
  const where = (file: string, i: number): string => `${file.slice(repoRoot.length)}:${i + 1}`;
  const long = docFiles().flatMap((file) =>
    read(file)
      .split('\n')
      .flatMap((line, i) => ([...line].length > 120 ? [where(file, i)] : [])),
  );
  assert.equal(long, []);
});

shape('docs/ has a page for each topic, each opening with what a user wants to do', () => {
  for (const page of PAGES) {
    const file = join(DOCS, page);
    assert.ok(existsSync(file), `docs/${page} is missing`);
    if (page === 'README.md') continue;
    const opening = read(file).split('\n\n')[1] ?? '';
    assert.match(opening, /^You want/, `docs/${page} opens with: ${opening.slice(0, 60)}`);
  }
});

shape('every relative link of the README and docs/ reaches a file, and a heading when it names one', () => {
  const broken: string[] = [];
  for (const file of docFiles()) {
    for (const [, link] of prose(read(file)).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(link!)) continue;
      const [path, anchor] = link!.split('#') as [string, string | undefined];
      const target = path ? normalize(join(dirname(file), path)) : file;
      if (!existsSync(target)) broken.push(`${file.slice(repoRoot.length)}: ${link}`);
      else if (anchor && target.endsWith('.md')) {
        const anchors = [...prose(read(target)).matchAll(/^#+ (.*)$/gm)].map((m) => anchorOf(m[1]!));
        if (!anchors.includes(anchor)) broken.push(`${file.slice(repoRoot.length)}: ${link}`);
      }
    }
  }
  assert.equal(broken, []);
});

shape("the README's quick start runs the gateway on a fresh machine and the tests as CI does", () => {
  const commands = blocks(read(README), 'sh').map((b) => b.trim());
  assert.ok(commands.includes('npm install && npx tern onboard && npx tern gateway'), commands.join(' | '));
  assert.ok(commands.includes('npm install && npm test'), commands.join(' | '));
  assert.match(read(join(repoRoot, '.ci/run')), /\nnpm ci [^\n]*\n[\s\S]*\ntimeout \d+ npm test\n/);
});

shape('the README shows the five things users do, each with an example', () => {
  const text = read(README);
  const things = ['Run the gateway', 'Talk to the agent', 'Open the dashboard', 'Replay a turn', 'Script turns'];
  for (const heading of things) {
    assert.match(section(text, heading), /```(sh|yaml)\n/, `"${heading}" has no example`);
  }
});

shape('the docs say how to point a channel elsewhere, stream, pair, reset the password and run one test file', () => {
  const channels = read(join(DOCS, 'channels.md'));
  assert.match(channels, /## Point a channel at another API address\n\n`settings\.base_url` replaces /);
  assert.match(channels, /`settings\.base_url` replaces `https:\/\/api\.telegram\.org` for a Telegram channel/);
  assert.match(channels, /One switch streams a channel: its `settings\.streaming\.enabled`/);
  assert.match(channels, /## Who may talk to the bot\n/);
  assert.match(channels, /npx tern pairing approve K7Q2M9XD/);
  const security = read(join(DOCS, 'security.md'));
  assert.match(security, /\*\*Reset a forgotten password\*\*[\s\S]*?rm -r ~\/\.agent\/launcher-auth\.db/);
  assert.match(read(join(DOCS, 'development.md')), /npm test -- 'config\/ranges' +# one test file/);
});

shape("the docs say the dashboard's chat draws the approval buttons", () => {
  const all = docFiles().map(read).join('\n');
  assert.not.match(all, /does not draw/);
  const approvals = read(join(DOCS, 'hooks-and-plugins.md')).replace(/\s+/g, ' ');
  assert.match(approvals, /the dashboard's Chat page draws them as two buttons under the question/);
});

/** A fragment of config in the docs, completed with the models its fragments name (fast, smart, main). */
function completed(example: Record<string, unknown>): Record<string, unknown> {
  const model = (name: string) => ({
    model_name: name,
    provider: 'openai',
    model: 'gpt-4o-mini',
    api_keys: ['sk-docs-example-0001'],
  });
  const given = (example.model_list as Array<{ model_name: string }> | undefined) ?? [];
  const names = new Set(given.map((m) => m.model_name));
  const missing = ['fast', 'smart', 'main'].filter((n) => !names.has(n));
  return { version: 2, ...example, model_list: [...given, ...missing.map(model)] };
}

const CONFIG_KEYS = new Set([
  'version',
  'agents',
  'model_list',
  'channel_list',
  'tools',
  'hooks',
  'session',
  'gateway',
  'cluster',
  'events',
]);

/** What `tern config validate FILE` reports for a config: its problems, channel requirements included. */
function problemsOf(config: Record<string, unknown>, home: TempHome): string[] {
  const path = join(home.home, 'example.json');
  writeFileSync(path, JSON.stringify(config));
  try {
    return loadCheckedConfig({ env: home.env, rewrite: false, path }).channelProblems;
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

shape('every config example in the README and docs/ validates', () => {
  const home = tempHome();
  const problems: string[] = [];
  let checked = 0;
  try {
    for (const file of docFiles()) {
      for (const block of blocks(read(file), 'json')) {
        const example = JSON.parse(block) as Record<string, unknown>;
        if (!Object.keys(example).every((key) => CONFIG_KEYS.has(key))) continue;
        checked++;
        problems.push(...problemsOf(completed(example), home).map((p) => `${file.slice(repoRoot.length)}: ${p}`));
      }
    }
  } finally {
    home.remove();
  }
  assert.ok(checked >= 10, `only ${checked} config examples found`);
  assert.equal(problems, []);
});

shape.run();

const run = suite<{ home: TempHome; model: RuleModel }>("the README's examples, run as written");
run.before.each(async (ctx) => {
  ctx.home = tempHome();
  ctx.model = await startRuleModel((request) => {
    if (request.last === 'tool') return { text: `Done: ${request.toolResult}` };
    const write = { name: 'write_file', arguments: { path: 'hello.txt', content: 'hi' } };
    if (request.user.startsWith('Write hello.txt')) return { calls: [write] };
    return { text: `You said: ${request.user}` };
  });
  writeConfig(ctx.home.home, ctx.model.url);
});
run.after.each(async (ctx) => {
  await ctx.model.close();
  ctx.home.remove();
});

/** The arguments of the README's `npx tern …` lines in a section, without their comments. */
function ternCommands(text: string): string[][] {
  return blocks(text, 'sh')
    .flatMap((b) => b.split('\n'))
    .filter((line) => line.startsWith('npx tern '))
    .map((line) => line.replace(/\s+#.*$/, '').slice('npx tern '.length))
    .map((args) => args.match(/"[^"]*"|\S+/g)!.map((a) => a.replace(/^"|"$/g, '')));
}

run('talk to the agent, script turns, then replay the first scripted turn and rerun it', async ({ home }) => {
  const readme = read(README);
  const [talk] = ternCommands(section(readme, 'Talk to the agent'));
  assert.equal(talk, ['agent', '-m', 'What is in my workspace?']);
  const talked = await runCliAsync(talk!, home.env);
  assert.equal(talked, { code: 0, stdout: 'You said: What is in my workspace?\n', stderr: '' });

  const script = join(home.home, 'turns.yaml');
  writeFileSync(script, blocks(section(readme, 'Script turns'), 'yaml')[0]!);
  assert.equal(ternCommands(section(readme, 'Script turns')), [['agent', '--script', 'turns.yaml']]);
  const scripted = await runCliAsync(['agent', '--script', script], home.env);
  assert.equal(scripted, {
    code: 0,
    stdout: [
      '> Write hello.txt containing hi',
      'Done: wrote 2 bytes to hello.txt',
      '✓ turn 1',
      '> /use weather Paris?',
      'You said: Paris?',
      '',
    ].join('\n'),
    stderr: '',
  });

  const [list, show, rerun] = ternCommands(section(readme, 'Replay a turn'));
  assert.equal(list, ['log', '--type', 'turn.completed', '--limit', '3']);
  const listed = await runCliAsync(list!, home.env);
  assert.is(listed.code, 0);
  const turns = [...listed.stdout.matchAll(/ (t_\w+) +\{"reply":"([^"]*)"/g)].map((m) => ({ id: m[1]!, reply: m[2]! }));
  const replies = ['You said: What is in my workspace?', 'Done: wrote 2 bytes to hello.txt', 'You said: Paris?'];
  assert.equal(
    turns.map((t) => t.reply),
    replies,
  );
  const turn = turns[1]!.id;

  const timeline = await runCliAsync([show![0]!, turn], home.env);
  assert.is(timeline.code, 0);
  assert.match(timeline.stdout, /tool\.requested +write_file \{"path":"hello\.txt","content":"hi"\}\n/);
  assert.match(timeline.stdout, /turn\.completed +reply: Done: wrote 2 bytes to hello\.txt\n/);
  assert.equal(rerun!.slice(2), ['--rerun']);
  const again = await runCliAsync([rerun![0]!, turn, '--rerun'], home.env);
  assert.equal(again, { code: 0, stdout: 'identical\n', stderr: '' });
});

run.run();
