import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { call, errorBody } from '../launcher/launcher-harness.js';
import { seedDraft, skillsDashboard } from '../support/skills-dashboard.js';

test(
  '/api/skills lists with provenance; ' + 'search, install, refusals and remove answer JSON with fitting statuses',
  async () => {
    const { dashboard, server } = await skillsDashboard();
    const get = (path: string) => call(dashboard.launcher, path, { cookie: dashboard.cookie });
    const post = (path: string, json: unknown) => call(dashboard.launcher, path, { cookie: dashboard.cookie, json });
    try {
      const before = (await get('/api/skills')).body as { skills: Array<{ name: string; root: string }> };
      assert.equal(
        before.skills.map((s) => [s.name, s.root]),
        [
          ['daily-plan', 'builtin'],
          ['summarize', 'builtin'],
          ['weather', 'builtin'],
        ],
      );
      const found = await get('/api/skills/search?q=weather&limit=2');
      assert.equal(
        [found.status, (found.body as { results: Array<{ slug: string }> }).results.map((r) => r.slug)],
        [200, ['weather', 'evil']],
      );
      assert.equal(await get('/api/skills/search').then((r) => [r.status, r.body]), [
        400,
        errorBody('bad_query', 'q (the search words) is required'),
      ]);
      const installed = await post('/api/skills/install', { ref: 'weather' });
      assert.equal([installed.status, (installed.body as { action: string; path: string }).action], [200, 'installed']);
      const listed = (await get('/api/skills')).body as {
        skills: Array<{
          name: string;
          root: string;
          shadowed: boolean;
          origin?: { slug: string; installed_version: string };
        }>;
      };
      assert.equal(
        listed.skills.filter((s) => s.name === 'weather').map((s) => [s.root, s.shadowed, s.origin?.installed_version]),
        [
          ['workspace', false, '1.0.0'],
          ['builtin', true, undefined],
        ],
      );
      assert.equal(await post('/api/skills/install', { ref: 'evil' }).then((r) => [r.status, r.body]), [
        422,
        errorBody('malware_blocked', 'clawhub/evil is blocked by the registry as malware and is never installed'),
      ]);
      const shady = await post('/api/skills/install', { ref: 'shady' });
      assert.equal([shady.status, (shady.body as { error: { code: string } }).error.code], [422, 'suspicious']);
      assert.equal(await post('/api/skills/install', { ref: 'weather', fast: true }).then((r) => r.status), 400);
      assert.equal(await post('/api/skills/remove', { name: 'weather' }).then((r) => r.status), 200);
      assert.not.ok(existsSync(join(dashboard.home.workspace, 'skills', 'weather')));
      assert.equal(
        await post('/api/skills/remove', { name: 'weather' }).then((r) => [
          r.status,
          (r.body as { error: { code: string } }).error.code,
        ]),
        [404, 'not_installed'],
      );
    } finally {
      await dashboard.close();
      await server.close();
    }
  },
);

test(
  "drafts are listed; accept and reject go to the gateway's evolution actor; " +
    'unknown, decided and stopped answer 404, 422, 409',
  async () => {
    const { dashboard, server } = await skillsDashboard();
    const post = (path: string) => call(dashboard.launcher, path, { cookie: dashboard.cookie, json: {} });
    try {
      await seedDraft(dashboard, 'd_one', 'notes-one');
      await seedDraft(dashboard, 'd_two', 'notes-two');
      const drafts = (await call(dashboard.launcher, '/api/skills/drafts', { cookie: dashboard.cookie })).body as {
        drafts: Array<{ id: string; status: string; records: number }>;
      };
      assert.equal(drafts.drafts.map((d) => [d.id, d.status, d.records]).sort(), [
        ['d_one', 'pending', 2],
        ['d_two', 'pending', 2],
      ]);
      assert.equal(await post('/api/skills/drafts/d_one/accept').then((r) => [r.status, r.body]), [
        200,
        { ok: true, status: 'accepted' },
      ]);
      assert.equal(await post('/api/skills/drafts/d_two/reject').then((r) => [r.status, r.body]), [
        200,
        { ok: true, status: 'rejected' },
      ]);
      assert.equal(await post('/api/skills/drafts/d_one/reject').then((r) => [r.status, r.body]), [
        422,
        errorBody('draft_decided', 'draft d_one (notes-one) was accepted already'),
      ]);
      assert.equal(await post('/api/skills/drafts/d_nope/accept').then((r) => [r.status, r.body]), [
        404,
        errorBody('draft_unknown', 'there is no draft d_nope'),
      ]);
      assert.equal(await post('/api/skills/drafts/d_one/maybe').then((r) => r.status), 404);
      await dashboard.host.stop();
      assert.equal(await post('/api/skills/drafts/d_two/accept').then((r) => [r.status, r.body]), [
        409,
        errorBody('gateway_stopped', 'the gateway is stopped; start it to decide drafts'),
      ]);
      const after = (await call(dashboard.launcher, '/api/skills/drafts', { cookie: dashboard.cookie })).body as {
        drafts: Array<{ id: string; status: string; decided_by?: string }>;
      };
      assert.equal(after.drafts.map((d) => [d.id, d.status, d.decided_by]).sort(), [
        ['d_one', 'accepted', 'dashboard'],
        ['d_two', 'rejected', 'dashboard'],
      ]);
    } finally {
      await dashboard.close();
      await server.close();
    }
  },
);

test.run();
