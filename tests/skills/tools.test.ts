import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Envelope } from '../../bus/index.js';
import { sessionKeyOf } from '../../actors/agent.js';
import { startClawHubServer, type RegistryServer } from '../support/skill-registry-server.js';
import { skillZip } from '../support/skill-zips.js';
import { loadConfig } from '../../store/config/index.js';
import { message, startTurnFixture, writeConfig, type TurnFixture } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';

const call = (id: string, name: string, args: unknown) =>
  completion(
    { tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] },
    'tool_calls',
  );

async function fixture(extra: Record<string, unknown> = {}): Promise<{ f: TurnFixture; server: RegistryServer }> {
  const server = await startClawHubServer({
    skills: [
      {
        slug: 'weather',
        displayName: 'Weather',
        summary: 'Forecasts for any city',
        latest: '1.0.0',
        score: 2,
        versions: { '1.0.0': skillZip('weather', 'Forecasts for any city') },
      },
      {
        slug: 'evil',
        summary: 'weather stealer',
        latest: '1',
        score: 1,
        malware: true,
        versions: { '1': skillZip('evil', 'x') },
      },
    ],
  });
  const f = await startTurnFixture({
    tools: { skills: { registries: { clawhub: { base_url: server.url }, github: { enabled: false } }, ...extra } },
  });
  return { f, server };
}

const completed = (f: TurnFixture) =>
  f.events
    .filter((e): e is Envelope<'tool.completed'> => e.type === 'tool.completed')
    .map((e) => [e.data.name, e.data.ok, e.data.content]);

test('the model finds a skill with find_skills and installs it with install_skill; /list skills shows it', async () => {
  const { f, server } = await fixture();
  try {
    f.vendor.reply(
      call('c1', 'find_skills', { query: 'weather', limit: 3 }),
      call('c2', 'install_skill', { slug: 'weather', registry: 'clawhub' }),
      completion({ content: 'Installed.' }),
    );
    const reply = await f.send('find me a weather skill and install it');
    assert.is(reply.kind === 'turn' && reply.text, 'Installed.');
    const dir = join(f.home.workspace, 'skills', 'weather');
    assert.equal(completed(f), [
      [
        'find_skills',
        true,
        [
          'Found 2 skills for "weather":',
          '',
          '1. weather v1.0.0 (score 1.000, registry clawhub)',
          '   Name: Weather',
          '   Forecasts for any city',
          '2. evil v1 (score 0.700, registry clawhub)',
          '   weather stealer',
          '',
          'Use install_skill with the slug (and its registry) to install one.',
        ].join('\n'),
      ],
      [
        'install_skill',
        true,
        `Installed skill "weather" v1.0.0 from clawhub.\nLocation: ${dir}\n` +
          `Description: Forecasts for any city\nIt is available from the next message on.`,
      ],
    ]);
    assert.equal(server.requests.find((r) => r.path === '/api/v1/search')!.query, { q: 'weather', limit: '3' });
    const listed = await f.send('/list skills');
    assert.is(
      listed.kind === 'command' && listed.text,
      [
        'daily-plan: Turn a list of things to do into a prioritized plan for today, kept in the todo tool.',
        'summarize: Summarize a web page, a file in the workspace or pasted text into key points and a one-line gist.',
        'weather: Forecasts for any city',
      ].join('\n'),
    );
  } finally {
    await f.close();
    await server.close();
  }
});

test('one search cache per runtime: the same search after a tools reload is served from it', async () => {
  const { f, server } = await fixture();
  try {
    f.vendor.reply(
      call('c1', 'find_skills', { query: 'weather', limit: 3 }),
      completion({ content: 'Found.' }),
      call('c2', 'find_skills', { query: 'weather', limit: 3 }),
      completion({ content: 'Found again.' }),
    );
    await f.send('find me a weather skill');
    // What the gateway's hot reload does with a changed `tools` block: every agent's tools are built again.
    const skills = { registries: { clawhub: { base_url: server.url }, github: { enabled: false } } };
    writeConfig(f.home.home, f.vendor.url, { tools: { skills, exec: { enabled: false } } });
    f.runtime.loaded.config = loadConfig({ env: f.home.env }).config;
    await f.send('and once more');
    const searches = server.requests.filter((r) => r.path === '/api/v1/search');
    assert.is(searches.length, 1, 'the second search asked no registry');
    assert.equal(
      completed(f).map(([name, ok, content]) => [name, ok, String(content).split('\n')[0]]),
      [
        ['find_skills', true, 'Found 2 skills for "weather":'],
        ['find_skills', true, 'Found 2 skills for "weather" (cached):'],
      ],
    );
  } finally {
    await f.close();
    await server.close();
  }
});

test(
  'install_skill is refused from a remote chat unless it is listed in install_allowed_remotes; ' + 'malware is refused',
  async () => {
    const { f, server } = await fixture({ install_allowed_remotes: ['slack'] });
    try {
      const key = sessionKeyOf({ agent: 'main', channel: 'telegram', dimensions: [['chat', 'direct:42']] });
      const fromTelegram = {
        ...message('install weather', 'r1'),
        channel: 'telegram',
        chat: 'direct:42',
        remote: true,
      };
      f.vendor.reply(call('c1', 'install_skill', { slug: 'weather' }), completion({ content: 'Refused.' }));
      await f.runtime.ask({ ...fromTelegram, session_key: key });
      assert.equal(completed(f), [
        [
          'install_skill',
          false,
          'install_skill is refused from the remote chat telegram direct:42: ' +
            'skills are installed from this machine (`tern skills install weather`), ' +
            'or the chat is listed in tools.skills.install_allowed_remotes',
        ],
      ]);
      assert.not.ok(existsSync(join(f.home.workspace, 'skills', 'weather')));
      assert.not.ok(
        server.requests.some((r) => r.path.startsWith('/api/v1/skills')),
        'the registry was never asked',
      );
      f.events.length = 0;
      const slackKey = sessionKeyOf({ agent: 'main', channel: 'slack', dimensions: [['chat', 'channel:C1']] });
      f.vendor.reply(
        call('c2', 'install_skill', { slug: 'evil' }),
        call('c3', 'install_skill', { slug: 'weather' }),
        completion({ content: 'Done.' }),
      );
      await f.runtime.ask({
        ...message('install', 'r2'),
        session_key: slackKey,
        channel: 'slack',
        chat: 'channel:C1',
        remote: true,
      });
      assert.equal(
        completed(f).map(([name, ok, content]) => [name, ok, String(content).split('\n')[0]]),
        [
          [
            'install_skill',
            false,
            'install_skill failed: clawhub/evil is blocked by the registry as malware and is never installed',
          ],
          ['install_skill', true, 'Installed skill "weather" v1.0.0 from clawhub.'],
        ],
      );
    } finally {
      await f.close();
      await server.close();
    }
  },
);

test('/list skills lists the skills of the current agent: its AGENT.md skills key narrows them', async () => {
  const { f, server } = await fixture();
  try {
    writeFileSync(join(f.home.workspace, 'AGENT.md'), '---\nskills: [summarize, weather]\n---\nBe brief.\n');
    const listed = await f.send('/list skills');
    assert.is(
      listed.kind === 'command' && listed.text,
      [
        'summarize: Summarize a web page, a file in the workspace or pasted text into key points and a one-line gist.',
        'weather: Current weather and a short forecast for a place, from wttr.in, without an API key.',
      ].join('\n'),
    );
    const refused = await f.send('/use daily-plan now');
    assert.is(
      refused.kind === 'command' && refused.text,
      'Unknown skill "daily-plan" (installed: summarize, weather).',
    );
    writeFileSync(join(f.home.workspace, 'AGENT.md'), '---\nskills: []\n---\nBe brief.\n');
    const none = await f.send('/list skills');
    assert.is(none.kind === 'command' && none.text, 'No skills for agent main.');
  } finally {
    await f.close();
    await server.close();
  }
});

test.run();
