// Skill search across 3 loopback ClawHub-style registries (max_concurrent_searches 2, the default), each holding
// 200 skills: `skills.search_ms` with the cache cold (a new query each time: every registry is asked) and
// `skills.search_warm_ms` for the same query again within ttl_seconds (answered from the LRU cache). Medians.
import { skillServices } from '../adapters/skills/index.js';
import { validateConfig } from '../store/config/index.js';
import { startClawHubServer, type RegistryServer } from '../tests/support/skill-registry-server.js';
import { percentile, round, type BenchRow } from './row.js';

const COLD = 60;
const WARM = 2000;
const WORDS = ['weather', 'calendar', 'invoice', 'github', 'notes', 'pdf', 'slack', 'email', 'docker', 'sql'];

function median(samples: number[]): number {
  return percentile(
    [...samples].sort((a, b) => a - b),
    50,
  );
}

async function registry(offset: number): Promise<RegistryServer> {
  const skills = Array.from({ length: 200 }, (_, i) => ({
    slug: `${WORDS[(i + offset) % WORDS.length]}-${i}`,
    summary:
      `Helps with ${WORDS[(i * 3 + offset) % WORDS.length]} and ` +
      `${WORDS[(i * 7) % WORDS.length]} tasks, number ${i}`,
    latest: '1.0.0',
    score: (i % 17) / 3,
    versions: {},
  }));
  return startClawHubServer({ skills });
}

export async function bench(): Promise<BenchRow[]> {
  const servers = await Promise.all([0, 3, 6].map(registry));
  try {
    const config = validateConfig({
      version: 2,
      tools: {
        skills: {
          registries: {
            clawhub: { enabled: false },
            github: { enabled: false },
            ...Object.fromEntries(servers.map((s, i) => [`r${i}`, { base_url: s.url }])),
          },
        },
      },
    });
    if (!config.ok) throw new Error(config.problems.join('; '));
    const { search } = skillServices(config.config.tools.skills, { workspace: '/nonexistent', global: '/nonexistent' });
    const timed = async (query: string): Promise<number> => {
      const started = performance.now();
      await search.search(query, 10);
      return performance.now() - started;
    };
    for (let i = 0; i < 10; i++) await timed(`warmup ${i}`);
    const cold: number[] = [];
    for (let i = 0; i < COLD; i++) cold.push(await timed(`${WORDS[i % WORDS.length]} ${i}`));
    await timed('weather tasks');
    const warm: number[] = [];
    for (let i = 0; i < WARM; i++) warm.push(await timed('weather tasks'));
    return [
      { name: 'skills.search_ms', value: round(median(cold), 2), unit: 'ms' },
      { name: 'skills.search_warm_ms', value: round(median(warm), 4), unit: 'ms' },
    ];
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
}
