import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../bus/index.js';
import { watchViolations } from '../support/browser.js';
import { replyStreamed } from '../support/dashboard-harness.js';
import { completionStreamText, sse } from '../support/vendor-chat-completions.js';
import { passes } from '../support/eventually.js';
import { buildBundle, events, open, REPLY, shot, signedIn, toolCall, withBrowser } from './browser-session.js';

buildBundle();

test(
  'subagents: the machines page hangs a running subagent and its own session and turn under the parent turn; ' +
    'the turn view nests its timeline under the call that started it',
  async () => {
    await withBrowser({}, async (dashboard, browser) => {
      const page = await (await signedIn(browser, dashboard)).newPage();
      const problems = watchViolations(page);
      await open(page, dashboard, 'chat', '#chat-input');
      // The parent asks a synchronous subagent; the child's model keeps it waiting until the test lets it answer.
      dashboard.vendor.reply(toolCall('call_scout', 'subagent', { task: 'List the workspace.', label: 'scout' }));
      let answer: () => void = () => {};
      const childMayAnswer = new Promise<void>((resolve) => (answer = resolve));
      dashboard.vendor.reply({
        ...sse([completionStreamText([{ content: 'It holds AGENT.md.' }])]),
        wait: childMayAnswer,
      });
      await page.fill('#chat-input', 'ask a scout');
      await page.click('#chat-send');

      const machines = await (await signedIn(browser, dashboard)).newPage();
      await open(machines, dashboard, 'machines', '[data-machine="subagent"]');
      // The page hears of the subagent from the bus, maybe before the log has committed subagent.spawned.
      let spawned: Envelope<'subagent.spawned'> | undefined;
      await passes(async () => {
        [spawned] = await events<'subagent.spawned'>(dashboard, 'type=subagent.spawned&limit=1');
        assert.ok(spawned, 'subagent.spawned is in the log');
      });
      const task = spawned?.data.task_id ?? '';
      const branch = machines.locator(
        `.branch.turn:has(> [data-actor="turn:${spawned?.turn}"]) > .children .branch.subagent`,
      );
      await branch.locator(`[data-actor="subagent:${task}"] svg.chart .node.current[data-state="running"]`).waitFor();
      assert.is(
        await branch.locator('.branch.session .branch.turn [data-machine="turn"]').count(),
        1,
        "the child's session and turn hang under the subagent",
      );
      assert.match(
        (await branch.locator(`[data-actor="subagent:${task}"] .name`).textContent()) ?? '',
        /scout: List the workspace\./,
      );
      await shot(machines, 'machines-subagent');

      replyStreamed(dashboard.vendor, ['The scout says it holds AGENT.md.']);
      answer();
      await page.waitForSelector(`${REPLY} .turn-link`);
      // The turn view reads the log, which may commit the turn's last events after the bus has told the page.
      await dashboard.host.log()?.committed();
      await page.locator('.bubble.assistant .turn-link').click();
      await page.waitForSelector('#waterfall .wf-row.subagent');
      assert.equal(
        await page
          .locator('#waterfall .wf-row')
          .evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-kind'), /depth-(\d)/.exec(r.className)?.[1]])),
        [
          ['prompt', '0'],
          ['model', '0'],
          ['tool', '0'],
          ['subagent', '1'],
          ['prompt', '2'],
          ['model', '2'],
          ['chunks', '3'],
          ['model', '0'],
          ['chunks', '1'],
        ],
      );
      assert.ok((await page.locator('#waterfall .wf-legend li').allTextContents()).includes('subagent'));
      const child = page.locator('#waterfall .wf-row.subagent a');
      assert.match((await child.textContent()) ?? '', /^subagent scout · main$/);
      await shot(page, 'turn-subagent');
      // This page shows the parent's turn (and its #turn-outcome) until the router has handled the click: wait for the
      // child's turn by its id.
      const childTurn = (await child.getAttribute('href'))?.replace('#/turn/', '') ?? '';
      assert.ok(childTurn.length > 0, 'the row links a turn');
      await child.click();
      await page.waitForSelector(`.page-head h1 [title="${childTurn}"]`);
      assert.match((await page.textContent('blockquote.turn-text')) ?? '', /^You are a subagent \("scout"\)/);
      assert.equal(problems, [], 'no script errors and no CSP violations');
    });
  },
);

test.run();
