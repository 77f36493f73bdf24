import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { watchViolations } from '../support/browser.js';
import { replyStreamed } from '../support/dashboard-harness.js';
import { buildBundle, open, overflow, PHONE, REPLY, signedIn, withBrowser } from './browser-session.js';

buildBundle();

const TABLE = '| tool | runs |\n|---|---:|\n| exec | 2 |\n| read\\|write | 1 |';

test(
  'chat: an empty chat suggests what to try; ' +
    'a conversation started at 1280 px opens on a fresh phone, with its table, in a list with a new chat',
  async () => {
    await withBrowser({}, async (dashboard, browser) => {
      const desk = await (await signedIn(browser, dashboard)).newPage();
      const problems = watchViolations(desk);
      await open(desk, dashboard, 'chat', '#chat-empty .suggestion');
      assert.equal(await desk.locator('#chat-empty .suggestion').allTextContents(), [
        'What can you do?',
        'List the files in your workspace',
        'Remind me in 10 minutes to stretch',
        'Summarise https://example.com',
      ]);
      await desk.click('#chat-empty .suggestion >> nth=0');
      assert.is(await desk.inputValue('#chat-input'), 'What can you do?');

      replyStreamed(dashboard.vendor, ['Here is what ran:\n\n', TABLE]);
      await desk.click('#chat-send');
      await desk.waitForSelector(`${REPLY} .turn-link`);
      assert.is(await desk.locator('#chat-empty').count(), 0, 'the hint goes once a message is sent');

      const phone = await (await signedIn(browser, dashboard, PHONE)).newPage();
      const phoneProblems = watchViolations(phone);
      await open(phone, dashboard, 'chat', '.bubble.assistant .md-table');
      assert.is(await phone.textContent('.bubble.user'), await desk.textContent('.bubble.user'));
      const table = phone.locator('.bubble.assistant .md-table table');
      assert.equal(await table.locator('th').allTextContents(), ['tool', 'runs']);
      assert.equal(await table.locator('tbody td').allTextContents(), ['exec', '2', 'read|write', '1']);
      assert.is(await overflow(phone), 0, 'the chat fits 390 px');
      assert.is(await phone.textContent('#chat-conversations summary'), '1 conversation');
      const deskSession = await desk.evaluate(() => localStorage.getItem('tern.chat.session'));
      assert.equal(
        await phone
          .locator('#chat-conversations li.current')
          .evaluateAll((items) => items.map((li) => li.dataset.sessionId)),
        [deskSession],
        'the phone opened the conversation the laptop started',
      );

      await phone.click('#chat-new');
      await phone.waitForSelector('#chat-empty');
      assert.is(await phone.locator('#chat-log .bubble').count(), 0, 'a new chat starts empty');
      assert.equal([...problems, ...phoneProblems], [], 'no script errors and no CSP violations');
    });
  },
);

test.run();
