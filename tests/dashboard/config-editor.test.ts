// The config page as a person uses it: a model and a Telegram channel added through the form reach config.json,
// the running gateway reloads and answers on Telegram, and no secret ever reaches the browser.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { API_KEY, replyStreamed } from '../support/dashboard-harness.js';
import { TelegramEmulator } from '../support/telegram-emulator.js';
import { buildBundle, open, PHONE, signedIn, withBrowser } from './browser-session.js';
import { brokenWords, pageWidth } from './status-layout.js';

buildBundle();

const NEW_KEY = 'sk-second-key-000000002';
const BOT_TOKEN = '424242:AAE-config-editor-test-token';
const SECRETS = [API_KEY, NEW_KEY, BOT_TOKEN];

/** Every body the launcher sent to this page, to look for secrets in. */
function answers(page: Page): string[] {
  const bodies: string[] = [];
  page.on('response', (response) => {
    if (response.url().includes('/api/'))
      void response.text().then(
        (text) => bodies.push(text),
        () => {},
      );
  });
  return bodies;
}

const field = (page: Page, path: string) => page.locator(`[name="${path}"]`);

test('a model and a Telegram channel added in the form are saved, reloaded and answer', async () => {
  const emulator = await TelegramEmulator.start();
  try {
    await withBrowser({}, async (dashboard, browser) => {
      const page = await (await signedIn(browser, dashboard)).newPage();
      const bodies = answers(page);
      await open(page, dashboard, 'config', '[data-add="model_list"]');
      const before = readFileSync(join(dashboard.home.home, 'config.json'), 'utf8');

      await page.click('[data-add="model_list"]');
      await field(page, 'model_list.1.model_name').fill('second');
      await field(page, 'model_list.1.model').fill('gpt-second');
      await field(page, 'model_list.1.provider').fill('openai');
      await field(page, 'model_list.1.api_base').fill(`${dashboard.vendor.url}/v1`);
      await page.click('[data-path="model_list.1"] [data-add="model_list.1.api_keys"]');
      await field(page, 'model_list.1.api_keys.0').fill(NEW_KEY);
      await field(page, 'model_list.1.streaming.enabled').check();
      await page.click('details[data-block="agents"] > summary');
      await field(page, 'agents.defaults.model').fill('second');

      await page.fill('[data-new="channel_list"]', 'telegram');
      await page.click('[data-add="channel_list"]');
      await field(page, 'channel_list.telegram.settings.token').fill(BOT_TOKEN);
      await field(page, 'channel_list.telegram.settings.base_url').fill(emulator.url);
      await field(page, 'channel_list.telegram.settings.poll_timeout_seconds').fill('1');
      await page.click('[data-add="channel_list.telegram.settings.allow_from"]');
      await field(page, 'channel_list.telegram.settings.allow_from.0').fill('*');
      await page.locator('[name="channel_list.telegram.settings.allow_from.0"]').blur();

      await page.click('#config-save');
      await page.waitForSelector('#config-saved');
      const saved = JSON.parse(readFileSync(join(dashboard.home.home, 'config.json'), 'utf8'));
      assert.equal(saved.model_list[0].api_keys, [API_KEY], 'the masked key of the first model is kept');
      assert.equal(saved.model_list[1], {
        model_name: 'second',
        provider: 'openai',
        model: 'gpt-second',
        api_base: `${dashboard.vendor.url}/v1`,
        api_keys: [NEW_KEY],
        streaming: { enabled: true },
      });
      assert.equal(saved.agents.defaults.model, 'second');
      assert.equal(saved.channel_list.telegram, {
        enabled: true,
        type: 'telegram',
        settings: { token: BOT_TOKEN, base_url: emulator.url, poll_timeout_seconds: 1, allow_from: ['*'] },
      });
      const backups = readdirSync(dashboard.home.home).filter((name) => name.startsWith('config.json.bak-'));
      assert.is(backups.length, 1);
      assert.is(
        readFileSync(join(dashboard.home.home, backups[0] ?? ''), 'utf8'),
        before,
        'the backup is the old file',
      );

      replyStreamed(dashboard.vendor, ['Hello from the new model']);
      await emulator.say(BOT_TOKEN, 'hi there', { userId: 5001 });
      const [reply] = await emulator.waitForBotMessages(BOT_TOKEN, 5001, 1);
      assert.is(reply?.text, 'Hello from the new model');
      const call = dashboard.vendor.requests.find((request) => request.url === '/v1/chat/completions');
      assert.is(call?.headers.authorization, `Bearer ${NEW_KEY}`, 'the reloaded gateway asked the new model');

      await page.reload();
      await page.waitForSelector('[name="channel_list.telegram.settings.token"]');
      const shown = await page.evaluate(
        () =>
          document.documentElement.outerHTML +
          Array.from(document.querySelectorAll('input, textarea'), (input) => (input as HTMLInputElement).value).join(
            '\n',
          ),
      );
      for (const secret of SECRETS) {
        assert.not.ok(shown.includes(secret), `the page never holds ${secret}`);
        assert.not.ok(
          bodies.some((body) => body.includes(secret)),
          `no API answer holds ${secret}`,
        );
      }
      assert.is(
        await field(page, 'channel_list.telegram.settings.token').getAttribute('placeholder'),
        'saved (4242…en); type to replace',
      );
    });
  } finally {
    await emulator.stop();
  }
});

test('on a 390 px phone every block of the form fits, and no word is split across lines', async () => {
  await withBrowser({}, async (dashboard, browser) => {
    const page = await (await signedIn(browser, dashboard, PHONE)).newPage();
    await open(page, dashboard, 'config', '[data-add="model_list"]');
    await page.locator('details.block').evaluateAll((blocks) => {
      for (const block of blocks) (block as HTMLDetailsElement).open = true;
    });
    await page.click('[data-add="model_list.0.api_keys"]');
    assert.ok((await page.locator('details.block[open]').count()) >= 13, 'every block is open');
    assert.ok((await pageWidth(page)) <= 390, 'nothing wider than the phone');
    assert.equal(await brokenWords(page), [], 'no word split across lines');
  });
});

test.run();
