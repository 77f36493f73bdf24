import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { watchViolations } from '../support/browser.js';
import { freePort } from '../support/mcp-servers.js';
import { buildBundle, open, signedIn, textIs, withBrowser } from './browser-session.js';

buildBundle();

const WEB = { enabled: true, type: 'pico', settings: { streaming: { enabled: true } } };

test(
  'machines: the gateway shows its regions, a channel added to the config ' +
    'appears as its spawned child, and the reload is a move of the gateway',
  async () => {
    await withBrowser({ channels: { web: WEB } }, async (dashboard, browser) => {
      const page = await (await signedIn(browser, dashboard)).newPage();
      const problems = watchViolations(page);
      await open(page, dashboard, 'machines', '[data-actor="gateway"] .context');
      // The regions settle one by one while the gateway starts: the wait is for all three, not the first.
      await textIs(page, '[data-actor="gateway"] .context', 'engine loaded · schedule on · config idle');
      assert.is(await page.getAttribute('[data-actor="gateway"]', 'data-state'), 'running');

      // A Telegram account on a port nobody listens on: the reload spawns its channel actor, which fails to connect.
      const path = join(dashboard.home.home, 'config.json');
      const config = JSON.parse(readFileSync(path, 'utf8')) as { channel_list: Record<string, unknown> };
      const closed = await freePort();
      config.channel_list.tg = {
        enabled: true,
        type: 'telegram',
        settings: { token: '123:abc', base_url: `http://127.0.0.1:${closed}` },
      };
      writeFileSync(path, JSON.stringify(config, null, 2));
      await page.waitForSelector('[data-actor="channel:tg"] .reason.bad', { timeout: 20_000 });
      assert.is(await page.getAttribute('[data-actor="channel:web"]', 'data-state'), 'connected');

      await page.click('[data-actor="gateway"] .card-links a:has-text("history")');
      await page.waitForSelector('#actor-detail #detail-history li');
      const moves = await page.locator('#detail-history li').allTextContents();
      assert.ok(
        moves.some((m) => / on reload · #\d+$/.test(m)),
        `a move on reload among ${JSON.stringify(moves)}`,
      );
      assert.equal(problems, [], 'no script errors and no CSP violations');
    });
  },
);

test.run();
