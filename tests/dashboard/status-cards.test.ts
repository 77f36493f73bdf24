// The Status page as cards: each model, channel, MCP server and job with its state and last problem, readable on a
// phone (nothing wider than 390 px, no word split across lines) and with no secret in it.
import type { Page } from 'playwright-core';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../bus/index.js';
import { until } from '../support/eventually.js';
import { freePort } from '../support/mcp-servers.js';
import { TelegramEmulator } from '../support/telegram-emulator.js';
import { json } from '../support/vendor-server.js';
import { buildBundle, events, open, PHONE, signedIn, withBrowser } from './browser-session.js';
import { brokenWords, pageWidth } from './status-layout.js';

buildBundle();

const BOT_TOKEN = '515151:AAE-status-cards-test-token';
const PROXY_PASSWORD = 'hunter2-proxy-secret';

/** Each card of a section as [title, state, [label, value]…]. */
function cardsOf(page: Page, section: string) {
  return page
    .locator(`${section} .status-card`)
    .evaluateAll((cards) =>
      cards.map((card) => [
        card.querySelector('h3')?.textContent,
        card.querySelector('.pill')?.textContent ?? '',
        ...Array.from(card.querySelectorAll('dt'), (dt) => [dt.textContent, dt.nextElementSibling?.textContent]),
      ]),
    );
}

test('models, channels, MCP servers and tools as cards, with states and last errors, on a phone', async () => {
  const emulator = await TelegramEmulator.start();
  const gatewayPort = await freePort();
  try {
    const channels = {
      telegram: {
        enabled: true,
        type: 'telegram',
        settings: { token: BOT_TOKEN, base_url: emulator.url, poll_timeout_seconds: 1, allow_from: ['*'] },
      },
      line: { enabled: false, type: 'line', settings: { channel_secret: 'line-secret-0001' } },
    };
    const options = {
      channels,
      gatewayPort,
      models: [{ model_name: 'proxied', model: 'gpt-p', proxy: `http://ann:${PROXY_PASSWORD}@127.0.0.1:3128` }],
      tools: { mcp: { enabled: true, servers: { broken: { enabled: true, command: '/nonexistent/mcp-server' } } } },
    };
    await withBrowser(options, async (dashboard, browser) => {
      dashboard.vendor.reply(json({ error: { message: 'Incorrect API key provided' } }, 401));
      await emulator.say(BOT_TOKEN, 'hello from the phone', { userId: 6001 });
      await emulator.waitForBotMessages(BOT_TOKEN, 6001, 1);
      const [failed] = await events<'provider.failed'>(dashboard, 'type=provider.failed&limit=1');
      const [received] = await events<'message.received'>(dashboard, 'type=message.received&limit=1');
      // The MCP server's spawn fails on its own time, maybe after the model's answer: the card is read once it has.
      const mcpFailed = await until(
        'mcp.failed',
        async () => (await events<'mcp.failed'>(dashboard, 'type=mcp.failed&limit=1'))[0],
        30_000,
      );

      const page = await (await signedIn(browser, dashboard, PHONE)).newPage();
      const opened = Date.now();
      await open(page, dashboard, 'status', '#status-models .status-card');
      const cards = {
        models: await cardsOf(page, '#status-models'),
        channels: await cardsOf(page, '#status-channels'),
        mcp: await cardsOf(page, '#status-mcp'),
      };
      // The page says how long ago as it was drawn, somewhere between the two clock reads: "just now" under 5 s, then
      // "N s ago". On a loaded machine the page may be drawn seconds after the event.
      const read = Date.now();
      // Each card's own line is looked for (`rest` is what follows the time): another card may say another time.
      const shown = JSON.stringify(cards);
      const ago = (event: Envelope | undefined, rest: string) => {
        if (!event) return '?';
        const said = (now: number) => {
          const seconds = Math.max(0, Math.round((now - event.at) / 1000));
          return seconds < 5 ? 'just now' : `${seconds} s ago`;
        };
        for (let now = opened; now <= read + 1000; now += 500) {
          if (shown.includes(JSON.stringify(`${said(now)}${rest}`))) return said(now);
        }
        return said(read);
      };
      assert.equal(cards.models, [
        [
          'fast',
          '',
          ['Provider', 'openai'],
          ['Model', 'gpt-test'],
          ['Keys', '1 key (hidden)'],
          ['Last error', `${ago(failed, `: ${failed?.data.message}`)}: ${failed?.data.message}`],
        ],
        [
          'proxied',
          '',
          ['Provider', 'openai'],
          ['Model', 'gpt-p'],
          ['Keys', '1 key (hidden)'],
          ['Proxy', 'http://ann:****@127.0.0.1:3128'],
          ['Last error', 'none'],
        ],
      ]);
      assert.equal(cards.channels, [
        [
          'telegram',
          'connected',
          ['Kind', 'Telegram'],
          [
            'Last message',
            `${ago(received, ` from ${received?.data.sender}: hello from the phone`)} from ${received?.data.sender}: ` +
              'hello from the phone',
          ],
          ['Last error', 'none'],
        ],
        [
          'line',
          'off',
          ['Kind', 'LINE'],
          ['Last message', 'none yet'],
          ['Last error', 'none'],
          ['Webhook URL', `http://127.0.0.1:${gatewayPort}/webhooks/line/line`],
        ],
      ]);
      assert.equal(cards.mcp, [
        [
          'broken',
          'failed',
          ['Transport', 'stdio'],
          ['Runs', '/nonexistent/mcp-server'],
          ['Last error', `${ago(mcpFailed, `: ${mcpFailed?.data.reason}`)}: ${mcpFailed?.data.reason}`],
        ],
      ]);
      assert.equal(await page.locator('#status-tools [data-group="Files"] li code').allTextContents(), [
        'append_file',
        'edit_file',
        'list_dir',
        'read_file',
        'search_files',
        'send_file',
        'write_file',
      ]);
      assert.equal(
        await page
          .locator('#status-tools [data-group="Files"] li:has(code:text-is("read_file")) .chip')
          .allTextContents(),
        ['mode: bytes', 'max read file size: 65536'],
      );
      assert.ok((await pageWidth(page)) <= 390, 'nothing wider than the phone');
      assert.equal(await brokenWords(page), [], 'no word split across lines');
      const html = await page.content();
      for (const secret of [BOT_TOKEN, PROXY_PASSWORD, 'line-secret-0001', 'sk-test-key-0001'])
        assert.not.ok(html.includes(secret), `the page never holds ${secret}`);
    });
  } finally {
    await emulator.stop();
  }
});

test.run();
