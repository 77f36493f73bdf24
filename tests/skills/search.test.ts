import { test } from 'uvu';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as assert from 'uvu/assert';
import { skillServices } from '../../adapters/skills/index.js';
import { loadConfig, validateConfig } from '../../store/config/index.js';
import { tempHome as configHome } from '../config/home.js';
import { startClawHubServer, type Gauge, type RegistryServer } from '../support/skill-registry-server.js';
import { skillZip } from '../support/skill-zips.js';

const zip = skillZip('x', 'y');

/** `tools.skills` with only the named ClawHub-style registries enabled. */
function skillsConfig(registries: Record<string, Record<string, unknown>>, extra: Record<string, unknown> = {}) {
  const result = validateConfig({
    version: 2,
    tools: {
      skills: { registries: { clawhub: { enabled: false }, github: { enabled: false }, ...registries }, ...extra },
    },
  });
  if (!result.ok) throw new Error(result.problems.join('; '));
  return result.config.tools.skills;
}

const roots = { workspace: '/nonexistent/ws', global: '/nonexistent/home' };

async function twoRegistries(delays: [number, number], gauge: Gauge): Promise<[RegistryServer, RegistryServer]> {
  return Promise.all([
    startClawHubServer({
      gauge,
      delayMs: delays[0],
      skills: [
        {
          slug: 'weather',
          displayName: 'Weather',
          summary: 'Forecasts for any city',
          latest: '1.0.0',
          score: 3.2,
          versions: { '1.0.0': zip },
        },
        { slug: 'weather-radar', summary: 'Radar images', latest: '0.2.0', score: 1.6, versions: { '0.2.0': zip } },
      ],
    }),
    startClawHubServer({
      gauge,
      delayMs: delays[1],
      skills: [
        { slug: 'weather', summary: 'Weather (mirror)', latest: '1.0.0', score: 10, versions: { '1.0.0': zip } },
        {
          slug: 'sunrise',
          summary: 'Sunrise and weather times',
          latest: '2.0.0',
          score: 5,
          versions: { '2.0.0': zip },
        },
      ],
    }),
  ]);
}

test('two registries, one too slow: the other answers, the slow one is reported, one request at a time', async () => {
  const gauge = { current: 0, max: 0 };
  const [fast, slow] = await twoRegistries([100, 3000], gauge);
  try {
    const { search } = skillServices(
      skillsConfig(
        { fast: { base_url: fast.url }, slow: { base_url: slow.url, timeout: 1 } },
        { max_concurrent_searches: 1 },
      ),
      roots,
    );
    const started = Date.now();
    const outcome = await search.search('Weather', 5);
    assert.ok(Date.now() - started < 2900, 'the slow registry was not waited for past its timeout');
    assert.equal(outcome.failures, [{ registry: 'slow', error: `${new URL(slow.url).host}: no answer within 1 s` }]);
    assert.equal(
      outcome.results.map((r) => [r.registry, r.slug, r.score]),
      [
        ['fast', 'weather', 1],
        ['fast', 'weather-radar', 0.7],
      ],
    );
    assert.is(outcome.cached, false);
    assert.is(gauge.max, 1);
    assert.equal(
      fast.requests.map((r) => [r.path, r.query]),
      [['/api/v1/search', { q: 'weather', limit: '5' }]],
    );
  } finally {
    await Promise.all([fast.close(), slow.close()]);
  }
});

test(
  'with max_concurrent_searches 2 both registries are asked at once; ' + 'results merge, score and deduplicate',
  async () => {
    const gauge = { current: 0, max: 0 };
    const [a, b] = await twoRegistries([300, 300], gauge);
    try {
      const { search } = skillServices(skillsConfig({ a: { base_url: a.url }, b: { base_url: b.url } }), roots);
      const outcome = await search.search('weather', 10);
      assert.is(gauge.max, 2);
      assert.equal(outcome.failures, []);
      // b's scores are divided by 10 (its best), a's by 3.2; "weather" found in the text adds 0.4.
      assert.equal(
        outcome.results.map((r) => ({
          slug: r.slug,
          registry: r.registry,
          score: r.score,
          registry_score: r.registry_score,
          also_in: r.also_in,
        })),
        [
          { slug: 'weather', registry: 'a', score: 1, registry_score: 3.2, also_in: ['b'] },
          { slug: 'weather-radar', registry: 'a', score: 0.7, registry_score: 1.6, also_in: [] },
          { slug: 'sunrise', registry: 'b', score: 0.7, registry_score: 5, also_in: [] },
        ].sort((x, y) => y.score - x.score || x.slug.localeCompare(y.slug)),
      );
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  },
);

test(
  'a repeated query within ttl_seconds is answered from the cache: no request; ' + 'after the TTL it asks again',
  async () => {
    const server = await startClawHubServer({
      skills: [{ slug: 'weather', summary: 'Forecasts', latest: '1.0.0', versions: { '1.0.0': zip } }],
    });
    let now = 1_000_000;
    try {
      const { search } = skillServices(
        skillsConfig({ reg: { base_url: server.url } }, { search_cache: { max_size: 2, ttl_seconds: 60 } }),
        roots,
        { now: () => now },
      );
      const first = await search.search('weather', 5);
      now += 59_000;
      const second = await search.search('  WEATHER ', 5);
      assert.is(server.requests.length, 1);
      assert.is(second.cached, true);
      assert.equal(second.results, first.results);
      now += 1_000;
      assert.is((await search.search('weather', 5)).cached, false);
      assert.is(server.requests.length, 2);
    } finally {
      await server.close();
    }
  },
);

test('the cache keeps max_size queries, dropping the least recently used; partial answers are not cached', async () => {
  const server = await startClawHubServer({
    skills: [{ slug: 'weather', summary: 'Forecasts', latest: '1.0.0', versions: { '1.0.0': zip } }],
  });
  try {
    const { search } = skillServices(
      skillsConfig(
        { reg: { base_url: server.url }, dead: { base_url: 'http://127.0.0.1:9', timeout: 1 } },
        { search_cache: { max_size: 2, ttl_seconds: 300 } },
      ),
      roots,
    );
    const partial = await search.search('weather', 5);
    assert.is(partial.failures.length, 1);
    assert.is(partial.failures[0]!.registry, 'dead');
    assert.is((await search.search('weather', 5)).cached, false);
  } finally {
    await server.close();
  }
  const again = await startClawHubServer({ skills: [] });
  try {
    const { search } = skillServices(
      skillsConfig({ reg: { base_url: again.url } }, { search_cache: { max_size: 2, ttl_seconds: 300 } }),
      roots,
    );
    for (const q of ['a1', 'b1', 'a1', 'c1', 'b1']) await search.search(q, 5);
    // a1 b1 (miss, miss), a1 (hit), c1 (miss: drops b1, the least recently used), b1 (miss again).
    assert.equal(
      again.requests.map((r) => r.query.q),
      ['a1', 'b1', 'c1', 'b1'],
    );
  } finally {
    await again.close();
  }
});

test(
  'a registry with a proxy is reached through it (a forward proxy on loopback, ' + 'plain http in absolute form)',
  async () => {
    const server = await startClawHubServer({
      skills: [{ slug: 'weather', summary: 'Forecasts', latest: '1.0.0', versions: { '1.0.0': zip } }],
    });
    const forwarded: string[] = [];
    const proxy = createServer((req, res) => {
      forwarded.push(`${req.method} ${req.url}`);
      const upstream = request(req.url!, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const { search } = skillServices(skillsConfig({ reg: { base_url: server.url, proxy: proxyUrl } }), roots);
      const outcome = await search.search('weather', 5);
      assert.equal([outcome.failures, outcome.results.map((r) => r.slug)], [[], ['weather']]);
      assert.equal(forwarded, [`GET ${server.url}/api/v1/search?q=weather&limit=5`]);
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
      await server.close();
    }
  },
);

test('0 means the built-in default: 30 s, 50 MB zips, 2 MB answers; empty paths are the ClawHub defaults', () => {
  const [zeros, set] = ['zeros', 'set'].map(
    (name) =>
      skillServices(
        skillsConfig({
          [name]:
            name === 'zeros'
              ? { base_url: 'http://hub' }
              : {
                  base_url: 'http://hub/',
                  timeout: 5,
                  max_zip_size: 1000,
                  max_response_size: 2000,
                  search_path: 'find',
                },
        }),
        roots,
      ).settings.registries[0]!,
  );
  assert.equal(zeros, {
    name: 'zeros',
    kind: 'clawhub',
    baseUrl: 'http://hub',
    timeoutMs: 30_000,
    maxZipBytes: 50 * 1024 * 1024,
    maxResponseBytes: 2 * 1024 * 1024,
    searchPath: '/api/v1/search',
    skillsPath: '/api/v1/skills',
    downloadPath: '/api/v1/download',
  });
  assert.equal(
    [set!.baseUrl, set!.timeoutMs, set!.maxZipBytes, set!.maxResponseBytes, set!.searchPath],
    ['http://hub', 5000, 1000, 2000, '/find'],
  );
});

test(
  '.security.yml tokens fill registries of the config (list form too); ' +
    'a token for no configured registry is ignored with a warning',
  () => {
    const h = configHome();
    try {
      h.writeConfig({
        version: 2,
        tools: { skills: { registries: [{ name: 'company', base_url: 'https://skills.example' }] } },
      });
      h.writeCredentials({
        skills: {
          registries: { company: { auth_token: 'cmp_token_000000001' }, ghost: { auth_token: 'gst_token_000000001' } },
        },
      });
      const { config, warnings } = loadConfig({ env: h.env });
      assert.is(config.tools.skills.registries.company!.auth_token.reveal(), 'cmp_token_000000001');
      assert.equal(Object.keys(config.tools.skills.registries), ['clawhub', 'github', 'company']);
      assert.equal(warnings, ['.security.yml: skills.registries.ghost matches no registry in the config (ignored)']);
    } finally {
      h.remove();
    }
  },
);

test('registries accept the list form and object form; unnamed list entries are warned about', () => {
  const list = validateConfig({
    version: 2,
    tools: {
      skills: {
        registries: [
          { name: 'clawhub', base_url: 'https://hub.example' },
          { name: 'mine', type: 'github', base_url: 'https://ghe.example' },
          { base_url: 'x' },
        ],
      },
    },
  });
  if (!list.ok) throw new Error(list.problems.join('; '));
  assert.is(list.config.tools.skills.registries.clawhub.base_url, 'https://hub.example');
  assert.is(list.config.tools.skills.registries.mine!.type, 'github');
  assert.equal(list.warnings, ['tools.skills.registries[2] has no name (ignored; allowed: an object with a "name")']);
  const bad = validateConfig({ version: 2, tools: { skills: { registries: { mine: { type: 'gitlab' } } } } });
  assert.equal(bad.ok ? [] : bad.problems, [
    'tools.skills.registries.mine.type: "gitlab" is not allowed (allowed: clawhub, github)',
  ]);
});

test.run();
