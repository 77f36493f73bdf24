import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { watchViolations } from '../support/browser.js';
import { passes } from '../support/eventually.js';
import { replyStreamed } from '../support/dashboard-harness.js';
import { completion } from '../support/vendor-chat-completions.js';
import { buildBundle, events, open, REPLY, shot, signedIn, toolCall, withBrowser } from './browser-session.js';

buildBundle();

test(
  "chat: a sanitized reply, a refused tool shown in red with the model's text before it, the same conversation " +
    'after a reload, and each reply linking its turn view (axis, legend, a tooltip with tokens, rerun)',
  async () => {
    await withBrowser({}, async (dashboard, browser) => {
      const page = await (await signedIn(browser, dashboard)).newPage();
      const problems = watchViolations(page);
      await open(page, dashboard, 'chat', '#chat-input');
      // The browser's clock is five hours behind the gateway's: a message's time is the gateway's, live as after a
      // reload.
      await page.clock.setFixedTime(Date.now() - 5 * 3_600_000);

      replyStreamed(dashboard.vendor, ['**Hello** ', 'there <img src=x onerror=alert(1)>', ' `code`']);
      await page.fill('#chat-input', 'hi');
      await page.click('#chat-send');
      // The link is there from the first streamed piece on: the reply is read once it is whole.
      await page.waitForSelector(`${REPLY} .turn-link`);
      const first = page.locator('.bubble.assistant .body').first();
      assert.is(await first.textContent(), 'Hello there <img src=x onerror=alert(1)> code');
      assert.is(await first.locator('img').count(), 0);

      dashboard.vendor.reply(
        toolCall('call_1', 'exec', { command: 'rm -rf / --no-preserve-root' }, 'I will clean the disk.'),
      );
      replyStreamed(dashboard.vendor, ['That command was refused.']);
      await page.fill('#chat-input', 'clean up everything');
      await page.click('#chat-send');
      await page.waitForFunction((reply) => document.querySelectorAll(`${reply} .turn-link`).length === 2, REPLY);
      const [refused] = await events<'tool.completed'>(dashboard, 'type=tool.completed&limit=1');
      assert.equal([refused?.data.name, refused?.data.ok], ['exec', false]);
      const failed = page.locator('.step.tool.is-failed');
      assert.is(await failed.count(), 1);
      assert.is(await failed.locator('.step-error').textContent(), refused?.data.content);
      assert.is(await page.locator('.step.text').textContent(), 'I will clean the disk.');
      const before = await page.evaluate(() => document.getElementById('chat-log')?.textContent);
      await failed.locator('summary').click();
      assert.is(await failed.locator('pre.result').textContent(), refused?.data.content);
      await shot(page, 'chat');

      await page.reload();
      await page.waitForFunction(() => document.querySelectorAll('#chat-log .bubble.assistant').length === 2);
      assert.is(
        await page.evaluate(() => document.getElementById('chat-log')?.textContent),
        before,
        'the reloaded page shows the same conversation',
      );
      assert.is(await page.locator('.step.tool.is-failed .step-error').textContent(), refused?.data.content);

      // The turn view reads the log, which may commit the turn's last events after the bus has told the page.
      await dashboard.host.log()?.committed();
      const [started] = await events<'turn.started'>(dashboard, 'type=turn.started&limit=1');
      const link = page.locator('.bubble.assistant .turn-link').nth(1);
      assert.is(await link.getAttribute('href'), `#/turn/${started?.turn}`);
      await link.click();
      await page.waitForSelector('#waterfall .wf-row.model');
      const ticks = await page.locator('#waterfall .wf-tick').allTextContents();
      assert.ok(ticks.length >= 2 && ticks[0] === '0 ms', `axis ticks ${ticks.join(', ')}`);
      assert.equal(await page.locator('#waterfall .wf-legend li').allTextContents(), [
        'building the prompt',
        'model call',
        'streamed answer',
        'tool call',
        'failed',
      ]);
      assert.equal(
        await page.locator('#waterfall .wf-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-kind'))),
        ['prompt', 'model', 'chunks', 'tool', 'model', 'chunks'],
      );
      await page.hover('#waterfall .wf-row.model');
      await page.waitForSelector('#tooltip:not([hidden])');
      assert.is(await page.textContent('#tooltip .tip-tokens'), 'tokens: 12 in / 5 out');
      await shot(page, 'turn-tooltip', false);
      assert.is(
        await page.textContent('#turn-conversation .exchange.tool h3'),
        `✗ exec · ${refused?.data.content.length} chars`,
      );
      await page.click('#rerun');
      await page.waitForSelector('#rerun-result .rerun');
      assert.is(await page.textContent('#rerun-result'), 'identical: this build records the same 8 events');
      await shot(page, 'turn');
      assert.equal(problems, [], 'no script errors and no CSP violations');
    });
  },
);

test('turn view: a rerun that diverges shows both sides and marks the recorded event', async () => {
  await withBrowser({}, async (dashboard, browser) => {
    const keys = { agent: 'main', session: 's_diverge', turn: 't_diverge' };
    const settings = {
      model_name: 'fast',
      stream: false,
      max_tool_iterations: 5,
      loop_detection: { enabled: false, repeat_threshold: 3, critical_threshold: 6, window_size: 20 },
    };
    dashboard.host.publish({
      ...keys,
      type: 'turn.started',
      data: {
        message_id: 'm1',
        channel: 'pico',
        chat: 'direct:x',
        text: 'hello',
        session_key: 'v=1|agent=main|channel=pico|account=web|chat=direct:x',
        settings,
      },
    });
    dashboard.host.publish({
      ...keys,
      type: 'prompt.built',
      data: { system: 'sys', messages: [{ role: 'user', content: 'hello' }], tools: [] },
    });
    dashboard.host.publish({
      ...keys,
      type: 'provider.requested',
      data: { model_name: 'fast', stream: false, iteration: 1, message_count: 1 },
    });
    dashboard.host.publish({
      ...keys,
      type: 'provider.responded',
      data: { text: 'the answer', tool_calls: [], usage: { input_tokens: 3, output_tokens: 2 }, iteration: 1 },
    });
    // What an older build recorded: a reply that is not the answer's text.
    const ending = dashboard.host.publish({
      ...keys,
      type: 'turn.completed',
      data: { reply: 'another reply', iterations: 1 },
    });
    assert.ok(ending);
    await dashboard.host.log()?.committed();
    const [completed] = await events<'turn.completed'>(dashboard, 'turn=t_diverge&type=turn.completed');

    const page = await (await signedIn(browser, dashboard)).newPage();
    await open(page, dashboard, 'turn/t_diverge', '#rerun');
    await page.click('#rerun');
    await page.waitForSelector('#rerun-result .rerun.diverged');
    assert.is(
      await page.textContent('#rerun-result .rerun.diverged p'),
      `Diverges at recorded event 4 (#${completed?.seq}, turn.completed)`,
    );
    assert.equal(await page.locator('.diff-side:first-child .changed').allTextContents(), [
      '    "reply": "another reply",\n',
    ]);
    assert.equal(await page.locator('.diff-side:last-child .changed').allTextContents(), [
      '    "reply": "the answer",\n',
    ]);
    assert.equal(
      await page
        .locator('#turn-events .event-row.diverged')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-seq'))),
      [String(completed?.seq)],
    );
    await shot(page, 'turn-diverged');
  });
});

/** The chat's banner once it knows the gateway's state and models, with nothing to say (empty: not "visible"). */
const SETTLED_NO_BANNER = '#chat-banner[aria-busy="false"]:empty';

test(
  'banners by state: the first run asks for a model and the form goes once it works; ' +
    'a stopped gateway says so (not "no model") and starts from the banner',
  async () => {
    await withBrowser({ configured: false }, async (dashboard, browser) => {
      const page = await (await signedIn(browser, dashboard)).newPage();
      await open(page, dashboard, 'chat', '#banner-setup #onboard-form');
      await shot(page, 'chat-first-run');
      const fields: Record<string, string> = {
        model_name: 'first',
        provider: 'openai',
        model: 'gpt-test',
        api_base: `${dashboard.vendor.url}/v1`,
        api_key: 'sk-first-key-00000001',
      };
      for (const [name, value] of Object.entries(fields)) await page.fill(`#onboard-${name}`, value);
      dashboard.vendor.reply(completion({ content: 'OK' }));
      await page.click('#onboard-save');
      await page.waitForSelector(SETTLED_NO_BANNER, { state: 'attached' });
      // The banner can go (the reloaded config has a model) before the form's test call reaches the model.
      await passes(() => assert.is(dashboard.vendor.requests.length, 1, 'the form tested the model once'));

      await dashboard.host.stop();
      await page.waitForSelector('#banner-stopped');
      assert.is(await page.locator('#banner-setup').count(), 0, 'a stopped gateway is not "no model configured"');
      assert.match((await page.textContent('#banner-stopped')) ?? '', 'The gateway is stopped.');
      await shot(page, 'chat-gateway-stopped');
      await page.click('#banner-start');
      await page.waitForSelector(SETTLED_NO_BANNER, { state: 'attached' });
      assert.is(dashboard.host.gatewayStatus().state, 'running');
    });
  },
);

test.run();
