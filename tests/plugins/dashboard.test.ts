import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { PASSWORD, call } from '../launcher/launcher-harness.js';
import { launchChromium, watchViolations } from '../support/browser.js';
import { startDashboard } from '../support/dashboard-harness.js';
import { brokenPlugin, weatherPlugin } from '../support/plugin-fixtures.js';

const build = spawnSync(process.execPath, [fileURLToPath(new URL('../../web/build.mjs', import.meta.url))], {
  encoding: 'utf8',
});
if (build.status !== 0) throw new Error(`the dashboard bundle did not build: ${build.stderr}`);

test('the dashboard lists plugins with state, reason and path: GET /api/plugins and the Plugins page', async () => {
  const dashboard = await startDashboard();
  let browser: Browser | undefined;
  try {
    const weather = weatherPlugin(join(dashboard.home.home, 'plugins', 'node_modules', 'weather'));
    const broken = brokenPlugin(join(dashboard.home.home, 'plugins', 'node_modules', 'broken'));
    const path = join(dashboard.home.home, 'config.json');
    const config = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    writeFileSync(
      path,
      JSON.stringify({
        ...config,
        plugins: { entries: { weather: { trusted: true, config: { unit: 'C' } }, broken: { trusted: true } } },
      }),
    );
    await dashboard.host.stop();
    await dashboard.host.start();
    const expected = [
      {
        name: 'broken',
        version: '0.1.0',
        state: 'failed',
        reason: 'SyntaxError: missing ) after argument list (index.js:3)',
        path: broken,
      },
      { name: 'weather', version: '1.2.0', state: 'ready', path: weather },
    ];
    const reply = await call(dashboard.launcher, '/api/plugins', { cookie: dashboard.cookie });
    assert.equal([reply.status, reply.body], [200, { plugins: expected }]);
    assert.is((await call(dashboard.launcher, '/api/plugins')).status, 401);

    browser = await launchChromium();
    const page = await browser.newPage();
    const problems = watchViolations(page);
    await page.goto(dashboard.launcher.url);
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL(`${dashboard.launcher.url}/`), page.click('button[type=submit]')]);
    await page.goto(`${dashboard.launcher.url}/#/plugins`);
    await page.waitForSelector('#plugins td');
    const rows = await page
      .locator('#plugins tbody tr')
      .evaluateAll((trs) => trs.map((tr) => Array.from(tr.children, (td) => td.textContent)));
    assert.equal(
      rows,
      expected.map((p) => [p.name, p.version, p.state, p.reason ?? '', p.path]),
    );
    assert.equal(problems, []);
  } finally {
    await browser?.close();
    await dashboard.close();
  }
});

test.run();
