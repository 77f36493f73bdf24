import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { watchViolations } from '../support/browser.js';
import { replyStreamed } from '../support/dashboard-harness.js';
import { completionStreamText, sse } from '../support/vendor-chat-completions.js';
import { buildBundle, open, REPLY, shot, signedIn, withBrowser } from '../dashboard/browser-session.js';

buildBundle();

const execCall = (command: string) =>
  sse([
    completionStreamText(
      [
        {
          tool_calls: [
            {
              index: 0,
              id: 'call_1',
              type: 'function',
              function: { name: 'exec', arguments: JSON.stringify({ command }) },
            },
          ],
        },
      ],
      'tool_calls',
    ),
  ]);

test(
  'in a browser: the approval question shows under its turn with Approve and Deny; ' +
    'pressing Approve runs the call and the answer stays under the question, not as the reply',
  async () => {
    await withBrowser({ tools: { exec: { require_approval: true } } }, async (dashboard, browser) => {
      const page = await (await signedIn(browser, dashboard)).newPage();
      const problems = watchViolations(page);
      await open(page, dashboard, 'chat', '#chat-input');
      dashboard.vendor.reply(execCall('echo pressed'));
      replyStreamed(dashboard.vendor, ['It ran.']);
      await page.fill('#chat-input', 'run it');
      await page.click('#chat-send');
      await page.waitForSelector('.steps .bubble.question button');
      assert.equal(await page.locator('.bubble.question button').allTextContents(), ['Approve', 'Deny']);
      assert.match(
        (await page.locator('.bubble.question .body').textContent()) ?? '',
        /^exec wants to run `?echo pressed`? — reply \/approve [0-9a-f]{4} or \/deny [0-9a-f]{4}$/,
      );
      await page.click('.bubble.question button:has-text("Approve")');
      await page.waitForSelector(`${REPLY} .turn-link`);
      assert.is(await page.locator('.bubble.assistant .body').textContent(), 'It ran.');
      assert.is(await page.locator('.bubble.question .choice-answer').textContent(), 'Approved: exec goes ahead.');
      assert.equal(
        await page
          .locator('.bubble.question button')
          .evaluateAll((buttons) => buttons.map((b) => (b as HTMLButtonElement).disabled)),
        [true, true],
      );
      const tool = (
        JSON.parse(dashboard.vendor.requests[1]!.body.toString()) as {
          messages: Array<{ role: string; content: string }>;
        }
      ).messages.at(-1);
      assert.equal(tool, { role: 'tool', tool_call_id: 'call_1', content: 'pressed\n' });
      await shot(page, 'chat-approval');
      assert.equal(problems, []);
    });
  },
);

test.run();
