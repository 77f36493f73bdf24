import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { launchChromium, SCREENSHOTS, watchViolations } from '../support/browser.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { PASSWORD, start, tempHome } from './launcher-harness.js';

test(
  'in a browser: first visit creates the password, sign out, ' +
    'a wrong password shows the error, the right one signs in',
  async () => {
    const { home, remove } = tempHome();
    const launcher = await start(home);
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const page = await browser.newPage();
      const problems = watchViolations(page);

      await page.goto(launcher.url);
      assert.is(new URL(page.url()).pathname, '/launcher-setup');
      assert.ok(await page.isVisible('#setup_token'), 'opened without the setup link, the page asks for the token');
      await page.fill('#password', PASSWORD);
      await page.fill('#confirm', PASSWORD);
      await page.fill('#setup_token', 'not the token of this launcher');
      await page.click('button[type=submit]');
      await page.waitForSelector('#message:not([hidden])');
      assert.match((await page.textContent('#message')) ?? '', 'setup_token is not the one of this launcher');

      // The link tern-launcher prints fills the token in and leaves it out of the address bar.
      await page.goto(`${launcher.url}/launcher-setup?setup_token=${launcher.setupToken}`);
      assert.is(page.url(), `${launcher.url}/launcher-setup`);
      assert.not.ok(await page.isVisible('#setup_token'));
      await page.screenshot({ path: `${SCREENSHOTS}auth-setup.png` });
      await page.fill('#password', PASSWORD);
      await page.fill('#confirm', `${PASSWORD}?`);
      await page.click('button[type=submit]');
      await page.waitForSelector('#message:not([hidden])');
      assert.is(await page.textContent('#message'), 'confirm must equal password');

      await page.fill('#password', PASSWORD);
      await page.fill('#confirm', PASSWORD);
      await Promise.all([page.waitForURL(`${launcher.url}/`), page.click('button[type=submit]')]);
      // The launcher alone serves the dashboard's page without its bundle; sign out the way its button does.
      assert.is(await page.title(), 'Tern');
      await page.evaluate(() =>
        fetch('/api/auth/logout', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
      );
      await page.goto(`${launcher.url}/`);
      await page.waitForURL(`${launcher.url}/launcher-login`);
      await page.fill('#password', 'not the password');
      await page.click('button[type=submit]');
      await page.waitForSelector('#message:not([hidden])');
      assert.is(await page.textContent('#message'), 'wrong password');
      await page.screenshot({ path: `${SCREENSHOTS}auth-login.png` });

      await page.fill('#password', PASSWORD);
      await Promise.all([page.waitForURL(`${launcher.url}/`), page.click('button[type=submit]')]);
      const cookies = await page.context().cookies();
      assert.equal(
        cookies.map((c) => [c.name, c.httpOnly, c.sameSite]),
        [['tern_session', true, 'Strict']],
      );
      assert.equal(problems, [], 'no script errors and no CSP violations');
    } finally {
      await browser?.close();
      await launcher.close();
      remove();
    }
  },
);

test('in a browser: the sign-in pages say so when the password hash is kept in launcher-config.json', async () => {
  const { home, remove } = tempHome();
  writeFileSync(join(home, 'launcher-auth.db'), 'not a database');
  const launcher = await start(home);
  let browser: Browser | undefined;
  try {
    browser = await launchChromium();
    const page = await browser.newPage();
    await page.goto(`${launcher.url}/launcher-setup`);
    await page.waitForSelector('#storage-note:not([hidden])');
    assert.match((await page.textContent('#storage-note')) ?? '', 'the password hash is kept in launcher-config.json');
    await page.screenshot({ path: `${SCREENSHOTS}auth-setup-fallback.png` });
  } finally {
    await browser?.close();
    await launcher.close();
    remove();
  }
});

test.run();
