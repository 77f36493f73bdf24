// A dashboard whose ClawHub-style registry is a loopback server, and drafts seeded as evolution publishes them.
import type { EventData } from '../../bus/index.js';
import { call } from '../launcher/launcher-harness.js';
import { startDashboard, type Dashboard } from './dashboard-harness.js';
import { startClawHubServer, type RegistryServer } from './skill-registry-server.js';
import { skillMd, skillZip } from './skill-zips.js';

export async function skillsDashboard(): Promise<{ dashboard: Dashboard; server: RegistryServer }> {
  const server = await startClawHubServer({
    skills: [
      {
        slug: 'weather',
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
      {
        slug: 'shady',
        summary: 'weather, shady',
        latest: '1',
        score: 1,
        suspicious: true,
        versions: { '1': skillZip('shady', 'Shady weather') },
      },
    ],
  });
  const dashboard = await startDashboard({
    tools: { skills: { registries: { clawhub: { base_url: server.url }, github: { enabled: false } } } },
  });
  return { dashboard, server };
}

/** A draft as the evolution actor would publish it, once the gateway's engine (and so the actor) is running. */
export async function seedDraft(dashboard: Dashboard, draft: string, name: string): Promise<void> {
  await call(dashboard.launcher, '/api/tools', { cookie: dashboard.cookie });
  const data: EventData<'skill.drafted'> = {
    draft,
    shape: 'write|write_file',
    name,
    description: `Use ${name}.`,
    content: skillMd(name, `Use ${name}.`),
    records: [1, 2],
    success_ratio: 1,
    model_name: 'fast',
  };
  dashboard.host.publish({ type: 'skill.drafted', data });
}
