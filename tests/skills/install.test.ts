import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { skillServices, SkillInstallError } from '../../adapters/skills/index.js';
import { validateConfig } from '../../store/config/index.js';
import {
  type RegistryServer,
  type RegistrySkill,
  startClawHubServer,
  startGitHubServer,
} from '../support/skill-registry-server.js';
import { bombZip, MODE, skillMd, skillZip, zipOf } from '../support/skill-zips.js';
import { tempHome, type TempHome } from '../support/temp-home.js';

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

const weather1 = skillZip('weather', 'Forecasts for any city');
const weather2 = zipOf({
  'weather/SKILL.md': skillMd('weather', 'Forecasts for any city, now hourly', 'Version two.'),
});

let server: RegistryServer;
let home: TempHome;

function services(registry: Record<string, unknown> = {}) {
  const result = validateConfig({
    version: 2,
    tools: {
      skills: {
        registries: {
          clawhub: { base_url: server.url, auth_token: 'clh_token_0123456789', ...registry },
          github: { enabled: false },
        },
      },
    },
  });
  if (!result.ok) throw new Error(result.problems.join('; '));
  return skillServices(result.config.tools.skills, {
    workspace: join(home.workspace, 'skills'),
    global: join(home.home, 'skills'),
  });
}

/** Every file under the temp home except the workspace skills folder, and every file in it, as path → size. */
function snapshot(): { outside: Record<string, number>; skills: string[] } {
  const outside: Record<string, number> = {};
  const skills: string[] = [];
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (path.startsWith(join(home.workspace, 'skills'))) skills.push(relative(home.workspace, path));
      else outside[relative(home.home, path)] = statSync(path).size;
    }
  };
  walk(home.home);
  return { outside, skills: skills.sort() };
}

async function refused(
  ref: string,
  code: string,
  message: RegExp,
  registry: Record<string, unknown> = {},
  force = false,
): Promise<void> {
  const before = snapshot();
  try {
    await services(registry).installer.install({ ref, force });
    assert.unreachable(`${ref} was installed`);
  } catch (error) {
    assert.instance(error, SkillInstallError);
    assert.is((error as SkillInstallError).code, code);
    assert.match((error as Error).message, message);
  }
  assert.equal(snapshot(), before, `${ref}: nothing was written`);
}

/**
 * What the registry serves, zipped once for the file: the archive of 1,001 files costs more CPU to zip than a test
 * takes to refuse it. Each test gets a server of its own over the same bytes, and the absolute path into its home.
 */
const SKILLS: RegistrySkill[] = [
  { slug: 'weather', summary: 'Forecasts', latest: '1.0.0', versions: { '1.0.0': weather1, '1.1.0': weather2 } },
  {
    slug: 'slip',
    summary: 'climbs out',
    latest: '1',
    versions: { '1': zipOf({ 'SKILL.md': skillMd('slip', 'x'), '../../../../evil.txt': 'pwned' }) },
  },
  {
    slug: 'linked',
    summary: 'symlink',
    latest: '1',
    versions: {
      '1': zipOf({ 'SKILL.md': skillMd('linked', 'x'), 'notes.md': { data: '/etc/passwd', mode: MODE.symlink } }),
    },
  },
  {
    slug: 'device',
    summary: 'fifo',
    latest: '1',
    versions: { '1': zipOf({ 'SKILL.md': skillMd('device', 'x'), pipe: { data: '', mode: MODE.fifo } }) },
  },
  { slug: 'nameless', summary: 'no SKILL.md', latest: '1', versions: { '1': zipOf({ 'README.md': '# hi' }) } },
  {
    slug: 'undescribed',
    summary: 'no description',
    latest: '1',
    versions: { '1': zipOf({ 'SKILL.md': '---\nname: undescribed\n---\nbody\n' }) },
  },
  {
    slug: 'many',
    summary: 'many files',
    latest: '1',
    versions: {
      '1': zipOf(
        Object.fromEntries([
          ['SKILL.md', skillMd('many', 'x')],
          ...Array.from({ length: 1001 }, (_, i) => [`f/${i}.txt`, 'x']),
        ]),
      ),
    },
  },
  { slug: 'evil', summary: 'malware', latest: '1', malware: true, versions: { '1': skillZip('evil', 'x') } },
  {
    slug: 'shady',
    summary: 'suspicious',
    latest: '1',
    suspicious: true,
    versions: { '1': skillZip('shady', 'Looks fine') },
  },
];

test.before.each(async () => {
  home = tempHome();
  mkdirSync(home.workspace, { recursive: true });
  writeFileSync(join(home.workspace, 'AGENT.md'), 'hello\n');
  const absolute = zipOf({ 'SKILL.md': skillMd('absolute', 'x'), [`${home.home}/evil-abs.txt`]: 'pwned' });
  server = await startClawHubServer({
    // Copies: a test may move a skill's latest version.
    skills: [
      ...SKILLS.map((skill) => ({ ...skill })),
      { slug: 'absolute', summary: 'absolute', latest: '1', versions: { '1': absolute } },
    ],
  });
});

test.after.each(async () => {
  await server.close();
  home.remove();
});

test('install sends the bearer token, unpacks the skill and records where it came from', async () => {
  const result = await services().installer.install({ ref: 'weather' });
  const dir = join(home.workspace, 'skills', 'weather');
  assert.equal(
    {
      action: result.action,
      name: result.name,
      version: result.version,
      registry: result.registry,
      sha256: result.sha256,
      path: result.path,
    },
    {
      action: 'installed',
      name: 'weather',
      version: '1.0.0',
      registry: 'clawhub',
      sha256: sha256(weather1),
      path: dir,
    },
  );
  assert.equal(
    server.requests.map((r) => [r.path, r.authorization]),
    [
      ['/api/v1/skills/weather', 'Bearer clh_token_0123456789'],
      ['/api/v1/download', 'Bearer clh_token_0123456789'],
    ],
  );
  assert.equal(server.requests[1]!.query, { slug: 'weather', version: '1.0.0' });
  assert.is(readFileSync(join(dir, 'SKILL.md'), 'utf8'), skillMd('weather', 'Forecasts for any city'));
  assert.is(statSync(join(dir, 'scripts', 'run.sh')).mode & 0o777, 0o755);
  const origin = JSON.parse(readFileSync(join(dir, '.skill-origin.json'), 'utf8'));
  assert.equal(
    { ...origin, installed_at: 0 },
    {
      version: 1,
      registry: 'clawhub',
      slug: 'weather',
      installed_version: '1.0.0',
      installed_at: 0,
      sha256: sha256(weather1),
    },
  );
  assert.equal(readdirSync(join(home.workspace, 'skills')), ['weather'], 'no stage left behind');
});

test('install again upgrades to the latest version; the same version is left alone without a download', async () => {
  const { installer } = services();
  await installer.install({ ref: 'weather' });
  server.skills.get('weather')!.latest = '1.1.0';
  const upgraded = await installer.install({ ref: 'weather' });
  assert.equal(
    [upgraded.action, upgraded.version, upgraded.previous_version, upgraded.description],
    ['upgraded', '1.1.0', '1.0.0', 'Forecasts for any city, now hourly'],
  );
  const dir = join(home.workspace, 'skills', 'weather');
  assert.is(
    readFileSync(join(dir, 'SKILL.md'), 'utf8'),
    skillMd('weather', 'Forecasts for any city, now hourly', 'Version two.'),
  );
  assert.not.ok(existsSync(join(dir, 'scripts')), 'files of the old version are gone');
  const downloads = server.requests.filter((r) => r.path === '/api/v1/download').length;
  const again = await installer.install({ ref: 'weather' });
  assert.is(again.action, 'unchanged');
  assert.is(server.requests.filter((r) => r.path === '/api/v1/download').length, downloads);
  const pinned = await installer.install({ ref: 'weather', version: '1.0.0' });
  assert.equal([pinned.action, pinned.version, pinned.previous_version], ['upgraded', '1.0.0', '1.1.0']);
});

test('remove deletes the skill folder; --global installs and removes in <AGENT_HOME>/skills', async () => {
  const { installer } = services();
  await installer.install({ ref: 'weather' });
  await installer.install({ ref: 'weather', global: true });
  assert.ok(existsSync(join(home.home, 'skills', 'weather', 'SKILL.md')));
  assert.equal(installer.remove('weather'), {
    name: 'weather',
    folder: 'weather',
    root: 'workspace',
    path: join(home.workspace, 'skills', 'weather'),
  });
  assert.equal(readdirSync(join(home.workspace, 'skills')), []);
  assert.throws(() => installer.remove('weather'), /in the global skills .*remove it with --global/);
  installer.remove('weather', { global: true });
  assert.equal(readdirSync(join(home.home, 'skills')), []);
});

test('a local skill of the same folder is never replaced without force', async () => {
  const dir = join(home.workspace, 'skills', 'weather');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'SKILL.md'), skillMd('weather', 'mine'));
  await refused('weather', 'already_installed', /already exists .*not installed from a registry.*--force/);
  const forced = await services().installer.install({ ref: 'weather', force: true });
  assert.is(forced.action, 'installed');
  assert.is(readFileSync(join(dir, 'SKILL.md'), 'utf8'), skillMd('weather', 'Forecasts for any city'));
});

test('refused: an entry that climbs out with ..', () =>
  refused('slip', 'archive_refused', /"\.\.\/\.\.\/\.\.\/\.\.\/evil\.txt" climbs out of its folder/));

test('refused: an absolute path', () => refused('absolute', 'archive_refused', /is an absolute path/));

test('refused: a symbolic link', () => refused('linked', 'archive_refused', /"notes\.md" is a symbolic link/));

test('refused: a device, pipe or socket', () =>
  refused('device', 'archive_refused', /"pipe" is a device, pipe or socket/));

test('refused: an archive over max_zip_size, before it is unpacked', () =>
  refused('weather', 'archive_refused', /over the limit of 100 bytes/, { max_zip_size: 100 }));

test('refused: a zip bomb (a small archive that unpacks past 100 MB)', async () => {
  server.skills.set('bomb', {
    slug: 'bomb',
    summary: 'bomb',
    latest: '1',
    versions: { '1': bombZip(101 * 1024 * 1024) },
  });
  await refused('bomb', 'archive_refused', /unpacks to more than 100 MB/);
});

test('refused: more than 1000 files', () => refused('many', 'archive_refused', /more than 1000 files/));

test('refused: no SKILL.md, or one without a description', async () => {
  await refused('nameless', 'archive_refused', /has no SKILL\.md at its top/);
  await refused('undescribed', 'skill_invalid', /frontmatter description is missing/);
});

test('refused: a skill the registry blocks as malware, even with force; nothing is downloaded', async () => {
  await refused('evil', 'malware_blocked', /clawhub\/evil is blocked by the registry as malware/);
  await refused('evil', 'malware_blocked', /blocked by the registry as malware/, {}, true);
  assert.not.ok(server.requests.some((r) => r.path === '/api/v1/download'));
});

test('a suspicious skill needs force, and says why', async () => {
  await refused('shady', 'suspicious', /flagged as suspicious by the registry .*install with --force/);
  const forced = await services().installer.install({ ref: 'shady', force: true });
  assert.is(forced.action, 'installed');
  assert.equal(forced.warnings, [
    'clawhub/shady is flagged as suspicious by the registry (its moderation found risky patterns); ' +
      'installed because force was given',
  ]);
});

test(
  'GitHub-style registry: ' +
    'owner/repo/path@ref through the archive API of an enterprise host, following its redirect',
  async () => {
    const archive = zipOf({
      'acme-skills-1a2b3c/README.md': '# skills',
      'acme-skills-1a2b3c/skills/pdf/SKILL.md': skillMd('pdf', 'Read PDFs'),
      'acme-skills-1a2b3c/skills/pdf/scripts/extract.py': 'print(1)\n',
      'acme-skills-1a2b3c/skills/other/SKILL.md': skillMd('other', 'Other'),
    });
    const gh = await startGitHubServer([
      {
        fullName: 'acme/skills',
        description: 'PDF tools',
        defaultBranch: 'main',
        archives: { main: archive, v2: archive },
        skillFiles: ['skills/pdf/SKILL.md'],
      },
    ]);
    try {
      const result = validateConfig({
        version: 2,
        tools: {
          skills: {
            registries: {
              clawhub: { enabled: false },
              github: { base_url: gh.url, auth_token: 'ghp_token_0123456789' },
            },
          },
        },
      });
      if (!result.ok) throw new Error(result.problems.join('; '));
      const { installer, search } = skillServices(result.config.tools.skills, {
        workspace: join(home.workspace, 'skills'),
        global: join(home.home, 'skills'),
      });
      const installed = await installer.install({ ref: 'acme/skills/skills/pdf@v2' });
      assert.equal(
        [installed.action, installed.folder, installed.version, installed.slug],
        ['installed', 'pdf', 'v2', 'acme/skills/skills/pdf'],
      );
      assert.equal(readdirSync(join(home.workspace, 'skills', 'pdf')).sort(), [
        '.skill-origin.json',
        'SKILL.md',
        'scripts',
      ]);
      assert.equal(
        gh.requests.map((r) => [r.path, r.authorization]),
        [
          ['/api/v3/repos/acme/skills', 'Bearer ghp_token_0123456789'],
          ['/api/v3/repos/acme/skills/zipball/v2', 'Bearer ghp_token_0123456789'],
          ['/codeload/acme/skills/zip/v2', 'Bearer ghp_token_0123456789'],
        ],
      );
      const found = await search.search('pdf', 5);
      assert.equal(
        found.results.map((r) => [r.slug, r.display_name, r.version]),
        [['acme/skills/skills/pdf', 'pdf', 'main']],
      );
    } finally {
      await gh.close();
    }
  },
);

test.run();
