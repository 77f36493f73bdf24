// A stranger writes to a channel without allow_from, gets a code, and the owner lets them in from the dashboard:
// the gateway takes the decision at once, and their next message is answered.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { PairingReply } from '../../bus/api-shapes.js';
import { call } from '../launcher/launcher-harness.js';
import { replyStreamed } from '../support/dashboard-harness.js';
import { TelegramEmulator } from '../support/telegram-emulator.js';
import { buildBundle, open, PHONE, signedIn, withBrowser } from './browser-session.js';
import { brokenWords, pageWidth } from './status-layout.js';

buildBundle();

const BOT_TOKEN = '616161:AAE-pairing-page-test-token';

test('a waiting stranger is approved on the pairing page and answered next time', async () => {
  const emulator = await TelegramEmulator.start();
  try {
    const channels = {
      telegram: {
        enabled: true,
        type: 'telegram',
        settings: { token: BOT_TOKEN, base_url: emulator.url, poll_timeout_seconds: 1 },
      },
    };
    await withBrowser({ channels }, async (dashboard, browser) => {
      await emulator.say(BOT_TOKEN, 'let me in', { userId: 7001, userName: 'zoe' });
      await emulator.waitForBotMessages(BOT_TOKEN, 7001, 1);
      const listed = (await call(dashboard.launcher, '/api/pairing', { cookie: dashboard.cookie }))
        .body as PairingReply;
      assert.is(listed.requests.length, 1);
      const [request] = listed.requests;
      assert.equal([request?.channel, request?.sender, request?.aliases], ['telegram', '7001', ['7001', '@zoe']]);

      const page = await (await signedIn(browser, dashboard, PHONE)).newPage();
      await open(page, dashboard, 'pairing', `[data-code="${request?.code}"]`);
      assert.is(await page.textContent(`[data-code="${request?.code}"] h3`), '7001 (@zoe)');
      assert.ok((await pageWidth(page)) <= 390, 'nothing wider than the phone');
      assert.equal(await brokenWords(page), [], 'no word split across lines');
      await page.click(`[data-code="${request?.code}"] button.approve`);
      await page.waitForSelector('#pairing-notice .ok');
      assert.is(await page.textContent('#pairing-notice'), '7001 on telegram may write now.');
      await page.waitForSelector('#pairing-approved strong');
      assert.is(await page.textContent('#pairing-approved strong'), '7001 (@zoe)');
      assert.is(await page.locator('[data-code]').count(), 0, 'no one waits any more');

      replyStreamed(dashboard.vendor, ['Welcome, Zoe']);
      await emulator.say(BOT_TOKEN, 'hello again', { userId: 7001, userName: 'zoe' });
      const messages = await emulator.waitForBotMessages(BOT_TOKEN, 7001, 3);
      assert.is(messages[messages.length - 1]?.text, 'Welcome, Zoe');
    });
  } finally {
    await emulator.stop();
  }
});

test.run();
