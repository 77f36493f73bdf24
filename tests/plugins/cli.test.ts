import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from '../support/cli.js';
import { brokenPlugin, weatherPlugin } from '../support/plugin-fixtures.js';
import { tempHome, type TempHome } from '../support/temp-home.js';

const test = suite<{ home: TempHome }>('tern plugins');

test.before.each((context) => {
  context.home = tempHome();
  mkdirSync(context.home.home, { recursive: true });
  writeFileSync(join(context.home.home, 'config.json'), JSON.stringify({ version: 2 }));
});

test.after.each(({ home }) => home.remove());

const config = (home: TempHome) =>
  JSON.parse(readFileSync(join(home.home, 'config.json'), 'utf8')) as {
    plugins?: { entries?: Record<string, unknown> };
  };

test('install a local folder with npm, then enable, disable and remove it; list follows each step', async ({
  home,
}) => {
  const source = weatherPlugin(join(home.home, 'src', 'weather'));
  const installed = runCli(['plugins', 'install', source], home.env);
  const path = join(home.home, 'plugins', 'node_modules', 'weather');
  assert.equal(installed, {
    code: 0,
    stdout: `installed weather 1.2.0 in ${path}; run \`tern plugins enable weather\` to load it\n`,
    stderr: '',
  });
  assert.is(runCli(['plugins', 'list'], home.env).stdout, `weather 1.2.0: not enabled — ${path}\n`);

  assert.is(runCli(['plugins', 'enable', 'weather'], home.env).code, 0);
  assert.equal(config(home).plugins?.entries, { weather: { enabled: true } });
  // Its config schema asks for a unit, which the entry does not give yet.
  assert.equal(JSON.parse(runCli(['plugins', 'list', '--json'], home.env).stdout), {
    ok: true,
    plugins: [
      {
        name: 'weather',
        version: '1.2.0',
        state: 'failed',
        reason: 'plugins.entries.weather.config.unit: Invalid option: expected one of "C"|"F"',
        path,
      },
    ],
  });

  const entries = config(home).plugins!.entries as Record<string, Record<string, unknown>>;
  entries.weather = { ...entries.weather, trusted: true, config: { unit: 'F' } };
  writeFileSync(join(home.home, 'config.json'), JSON.stringify({ version: 2, plugins: { entries } }));
  assert.equal(JSON.parse(runCli(['plugins', 'list', '--json'], home.env).stdout), {
    ok: true,
    plugins: [{ name: 'weather', version: '1.2.0', state: 'ready', path }],
  });

  assert.is(
    runCli(['plugins', 'disable', 'weather'], home.env).stdout,
    `disabled weather in ${join(home.home, 'config.json')}; ` +
      `a running gateway loads plugins when it starts, so restart it\n`,
  );
  assert.is(runCli(['plugins', 'list'], home.env).stdout, `weather 1.2.0: disabled — ${path}\n`);

  assert.equal(runCli(['plugins', 'remove', 'weather', '--json'], home.env), {
    code: 0,
    stdout: '{"ok":true,"removed":"weather"}\n',
    stderr: '',
  });
  assert.is(existsSync(path), false);
  assert.equal(config(home).plugins?.entries, {});
  assert.is(runCli(['plugins', 'list'], home.env).stdout, 'No plugins installed.\n');
  assert.ok(existsSync(source), 'the source folder is left alone');
});

test('a plugin that does not parse is failed with the reason; others still load', ({ home }) => {
  brokenPlugin(join(home.home, 'plugins', 'node_modules', 'broken'));
  weatherPlugin(join(home.home, 'plugins', 'node_modules', 'weather'));
  writeFileSync(
    join(home.home, 'config.json'),
    JSON.stringify({
      version: 2,
      plugins: { entries: { broken: { trusted: true }, weather: { trusted: true, config: { unit: 'C' } } } },
    }),
  );
  const { code, stdout } = runCli(['plugins', 'list', '--json'], home.env);
  assert.is(code, 0);
  assert.equal((JSON.parse(stdout) as { plugins: unknown[] }).plugins, [
    {
      name: 'broken',
      version: '0.1.0',
      state: 'failed',
      reason: 'SyntaxError: missing ) after argument list (index.js:3)',
      path: join(home.home, 'plugins', 'node_modules', 'broken'),
    },
    { name: 'weather', version: '1.2.0', state: 'ready', path: join(home.home, 'plugins', 'node_modules', 'weather') },
  ]);
});

test('installing a package without a manifest fails, and leaves nothing installed', ({ home }) => {
  const folder = join(home.home, 'src', 'plain');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'plain', version: '1.0.0' }));
  const { code, stderr } = runCli(['plugins', 'install', folder], home.env);
  assert.is(code, 1);
  assert.is(
    stderr,
    `tern: cannot install ${folder} (plain is not a Tern plugin: ` +
      `tern-plugin.json is missing in ${join(home.home, 'plugins', 'node_modules', 'plain')}). ` +
      `Install a package that has a valid tern-plugin.json.\n`,
  );
  assert.is(existsSync(join(home.home, 'plugins', 'node_modules', 'plain')), false);
});

test('wrong usage and unknown names say what is allowed', ({ home }) => {
  assert.equal(runCli(['plugins', 'enable', 'ghost'], home.env), {
    code: 1,
    stdout: '',
    stderr:
      'tern: no plugin named "ghost" (installed or configured: ' +
      'none). Run `tern plugins list`, or install it with `tern plugins install NAME`.\n',
  });
});

test.run();
