import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCliAsync } from '../support/cli.js';
import { startClawHubServer, type RegistryServer } from '../support/skill-registry-server.js';
import { skillZip } from '../support/skill-zips.js';
import { tempHome, type TempHome } from '../support/temp-home.js';

const cli = suite<{ home: TempHome; server: RegistryServer }>('tern skills');

const weather = skillZip('weather', 'Forecasts for any city');
const sha = createHash('sha256').update(weather).digest('hex');

function writeConfig(home: TempHome, skills: Record<string, unknown>): void {
  mkdirSync(home.home, { recursive: true });
  writeFileSync(join(home.home, 'config.json'), JSON.stringify({ version: 2, tools: { skills } }));
}

cli.before.each(async (context) => {
  context.home = tempHome();
  context.server = await startClawHubServer({
    skills: [
      { slug: 'weather', summary: 'Forecasts for any city', latest: '1.0.0', score: 2, versions: { '1.0.0': weather } },
      { slug: 'evil', summary: 'weather stealer', latest: '1', score: 1, malware: true, versions: { '1': weather } },
    ],
  });
  writeConfig(context.home, { registries: { clawhub: { base_url: context.server.url }, github: { enabled: false } } });
});

cli.after.each(async ({ home, server }) => {
  await server.close();
  home.remove();
});

cli('search, install, list, show and remove, as text', async ({ home }) => {
  const found = await runCliAsync(['skills', 'search', 'weather'], home.env);
  assert.is(found.code, 0, found.stderr);
  assert.equal(found.stdout.split('\n'), [
    'SLUG     VERSION  REGISTRY  SCORE  SUMMARY',
    'weather  1.0.0    clawhub   1.000  Forecasts for any city',
    'evil     1        clawhub   0.700  weather stealer',
    '',
  ]);
  const installed = await runCliAsync(['skills', 'install', 'weather'], home.env);
  const dir = join(home.workspace, 'skills', 'weather');
  assert.is(installed.stdout, `installed weather 1.0.0 from clawhub/weather into ${dir}\n`);
  const listed = await runCliAsync(['skills', 'list'], home.env);
  assert.equal(listed.stdout.split('\n').slice(0, 2), [
    'NAME        ROOT       SOURCE                 DESCRIPTION',
    'weather     workspace  clawhub/weather@1.0.0  Forecasts for any city',
  ]);
  assert.ok(
    listed.stdout.includes('\nweather     builtin    built-in               (hidden by an earlier root) '),
    listed.stdout,
  );
  const shown = await runCliAsync(['skills', 'show', 'weather'], home.env);
  const lines = shown.stdout.split('\n');
  assert.equal(lines.slice(0, 2), [`weather (workspace, ${dir})`, 'Forecasts for any city']);
  assert.match(lines[2]!, new RegExp(`^from clawhub/weather 1\\.0\\.0, sha256 ${sha}, installed \\d{4}-`));
  assert.equal(lines.slice(3), ['', 'Do the thing step by step.', '']);
  const removed = await runCliAsync(['skills', 'remove', 'weather'], home.env);
  assert.is(removed.stdout, `removed weather (${dir})\n`);
  assert.equal(readdirSync(join(home.workspace, 'skills')), []);
});

cli(
  '--json everywhere; errors are {"ok":false,"error":{code,message}} with exit 1, usage errors exit 2',
  async ({ home }) => {
    const installed = await runCliAsync(['skills', 'install', 'weather@1.0.0', '--json'], home.env);
    const body = JSON.parse(installed.stdout) as Record<string, unknown>;
    assert.equal(
      { ok: body.ok, action: body.action, version: body.version, sha256: body.sha256, root: body.root },
      { ok: true, action: 'installed', version: '1.0.0', sha256: sha, root: 'workspace' },
    );
    const listed = JSON.parse((await runCliAsync(['skills', 'list', '--json'], home.env)).stdout) as {
      skills: Array<Record<string, unknown>>;
    };
    const mine = listed.skills.find((s) => s.root === 'workspace')!;
    assert.equal(
      { ...mine, origin: { ...(mine.origin as object), installed_at: 0 } },
      {
        name: 'weather',
        description: 'Forecasts for any city',
        root: 'workspace',
        folder: 'weather',
        path: join(home.workspace, 'skills', 'weather'),
        origin: {
          version: 1,
          registry: 'clawhub',
          slug: 'weather',
          installed_version: '1.0.0',
          installed_at: 0,
          sha256: sha,
        },
        shadowed: false,
      },
    );
    const blocked = await runCliAsync(['skills', 'install', 'evil', '--json'], home.env);
    assert.is(blocked.code, 1);
    assert.equal(JSON.parse(blocked.stdout), {
      ok: false,
      error: {
        code: 'malware_blocked',
        message:
          'evil was not installed (clawhub/evil is blocked by the registry ' +
          'as malware and is never installed). Choose another skill.',
      },
    });
    const text = await runCliAsync(['skills', 'install', 'evil'], home.env);
    assert.is(
      text.stderr,
      'tern: evil was not installed (clawhub/evil is blocked by the ' +
        'registry as malware and is never installed). Choose another skill.\n',
    );
    const unknown = await runCliAsync(['skills', 'show', 'nope'], home.env);
    assert.is(unknown.code, 1);
    assert.match(
      unknown.stderr,
      /^tern: no skill "nope" \(installed: [a-z-, ]*weather[a-z-, ]*\)\. Run `tern skills list`\.\n$/,
    );
    const builtin = await runCliAsync(['skills', 'remove', 'summarize'], home.env);
    assert.is(
      builtin.stderr,
      'tern: summarize was not removed (it is a built-in skill). Built-in skills stay; ' +
        'a skill of the same name in the workspace skills/ takes its place.\n',
    );
  },
);

cli(
  'a failing registry is a warning beside the results; when every registry fails, exit 1',
  async ({ home, server }) => {
    writeConfig(home, {
      registries: {
        clawhub: { base_url: server.url },
        github: { enabled: false },
        down: { base_url: 'http://127.0.0.1:9' },
      },
    });
    const partial = await runCliAsync(['skills', 'search', 'weather'], home.env);
    assert.is(partial.code, 0);
    assert.match(
      partial.stderr,
      new RegExp(
        /^tern: warning: registry down failed \(127\.0\.0\.1:9: connect ECONNREFUSED 127\.0\.0\.1:9\); /.source +
          /the others' results are shown\n$/.source,
      ),
    );
    assert.ok(partial.stdout.startsWith('SLUG'));
    writeConfig(home, {
      registries: { clawhub: { enabled: false }, github: { enabled: false }, down: { base_url: 'http://127.0.0.1:9' } },
    });
    const none = await runCliAsync(['skills', 'search', 'weather'], home.env);
    assert.is(none.code, 1);
    assert.match(
      none.stderr,
      /^tern: no registry answered the search \(down: 127\.0\.0\.1:9: connect ECONNREFUSED 127\.0\.0\.1:9\)\. /,
    );
  },
);

cli('the deprecated tools.skills.github block still works, with a warning', async ({ home }) => {
  writeConfig(home, {
    registries: { clawhub: { enabled: false } },
    github: { base_url: 'http://127.0.0.1:9', token: 'ghp_legacy_token_0001' },
  });
  const result = await runCliAsync(['skills', 'install', 'acme/skills/pdf'], home.env);
  assert.is(result.code, 1);
  assert.equal(result.stderr.split('\n'), [
    'tern: warning: tools.skills.github is deprecated; its fields now live in tools.skills.registries.github',
    'tern: acme/skills/pdf was not installed (registry github: 127.0.0.1:9: ' +
      'connect ECONNREFUSED 127.0.0.1:9). Check the registry address, token and proxy, then try again.',
    '',
  ]);
});

cli.run();
