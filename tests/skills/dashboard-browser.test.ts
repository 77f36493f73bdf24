import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium, watchViolations } from '../support/browser.js';
import { buildBundle, open, overflow, PHONE, shot, signedIn } from '../dashboard/browser-session.js';
import { seedDraft, skillsDashboard } from '../support/skills-dashboard.js';

buildBundle();

test(
  'in a browser: the skills page lists, searches, ' +
    'installs (a suspicious one after "Install anyway"), removes, and accepts a draft',
  async () => {
    const { dashboard, server } = await skillsDashboard();
    let browser: Browser | undefined;
    try {
      await seedDraft(dashboard, 'd_web', 'web-notes');
      browser = await launchChromium();
      const page = await (await signedIn(browser, dashboard)).newPage();
      const problems = watchViolations(page);
      await open(page, dashboard, 'skills', '#skills-installed tr[data-skill="summarize"]');
      assert.is(await page.locator('#skills-installed tr[data-skill="summarize"] td').nth(2).textContent(), 'built-in');

      await page.fill('#skills-query', 'weather');
      await page.click('#skills-search');
      await page.waitForSelector('#skills-results tr[data-slug="weather"]');
      assert.equal(
        await page
          .locator('#skills-results tbody tr')
          .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-slug'))),
        ['weather', 'evil', 'shady'],
      );
      await page.click('#skills-results tr[data-slug="weather"] .skill-install');
      await page.waitForSelector('#skills-installed tr[data-skill="weather"][data-root="workspace"]');
      assert.match(
        (await page.textContent('#skills-message')) ?? '',
        /^Installed weather 1\.0\.0 \(clawhub, .*skills\/weather\)\.$/,
      );
      assert.is(
        await page.locator('#skills-installed tr[data-skill="weather"][data-root="workspace"] td').nth(2).textContent(),
        'clawhub/weather@1.0.0',
      );

      await page.click('#skills-results tr[data-slug="shady"] .skill-install');
      await page.waitForSelector('#skills-install-anyway');
      assert.match(
        (await page.textContent('#skills-message')) ?? '',
        /flagged as suspicious by the registry .* \(suspicious\)/,
      );
      await page.click('#skills-install-anyway');
      await page.waitForSelector('#skills-installed tr[data-skill="shady"]');

      await page.click('#skills-installed tr[data-skill="weather"][data-root="workspace"] .skill-remove');
      await page.waitForFunction(
        () => !document.querySelector('#skills-installed tr[data-skill="weather"][data-root="workspace"]'),
      );
      assert.not.ok(existsSync(join(dashboard.home.workspace, 'skills', 'weather')));

      await page.waitForSelector('#skills-drafts tr[data-draft="d_web"][data-status="pending"]');
      await shot(page, 'skills');
      await page.click('#skills-drafts tr[data-draft="d_web"] .draft-accept');
      await page.waitForSelector('#skills-drafts tr[data-draft="d_web"][data-status="accepted"]');
      assert.is(await page.textContent('#skills-message'), 'Draft web-notes accepted.');
      assert.is(await page.locator('#skills-drafts tr[data-draft="d_web"] button').count(), 0);
      await page.setViewportSize(PHONE);
      assert.is(await overflow(page), 0, 'the skills page fits a 390 px phone');
      assert.equal(problems, []);
    } finally {
      await browser?.close();
      await dashboard.close();
      await server.close();
    }
  },
);

test.run();
