import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { watchViolations } from '../support/browser.js';
import { buildBundle, open, overflow, PHONE, shot, signedIn, withBrowser } from './browser-session.js';
import { seedManyTurns } from './many-turns.js';

buildBundle();

const domNodes = (): number => document.getElementsByTagName('*').length;

test(
  'machines: with 1,000 finished turns the page shows live actors, the latest sessions, ' +
    'and the turns as a searchable paged list under 2,000 nodes; charts zoom and fit on a phone',
  async () => {
    await withBrowser({}, async (dashboard, browser) => {
      await seedManyTurns(dashboard, 1000, 50);
      const page = await (await signedIn(browser, dashboard)).newPage();
      const problems = watchViolations(page);
      await open(page, dashboard, 'machines', '#finished-turns li[data-turn]');
      await page.waitForSelector('[data-machine="session"]');
      assert.is(await page.textContent('#turns-range'), '1–20 of 1,000');
      const first = await page.locator('#finished-turns li').evaluateAll((items) => items.map((li) => li.dataset.turn));
      assert.equal(
        first,
        Array.from({ length: 20 }, (_, i) => `t_many_${999 - i}`),
        'newest first',
      );
      assert.is(await page.locator('[data-machine="turn"]').count(), 0, 'no card for a finished turn');
      assert.is(await page.locator('[data-machine="session"]').count(), 6, 'the six latest sessions');
      assert.is(await page.textContent('.more-sessions'), '44 more sessions on the Sessions page');
      const nodes = await page.evaluate(domNodes);
      assert.ok(nodes < 2000, `${nodes} DOM nodes`);
      await shot(page, 'machines-1000-turns');

      await page.click('#turns-older');
      await page.waitForSelector('#finished-turns li[data-turn="t_many_979"]');
      assert.is(await page.textContent('#turns-range'), '21–40 of 1,000');
      await page.fill('#turns-search', 'question 99');
      await page.waitForFunction(() => document.getElementById('turns-range')?.textContent === '1–11 of 11');
      assert.equal(
        await page.locator('#finished-turns li').evaluateAll((items) => items.map((li) => li.dataset.turn)),
        ['t_many_999', 't_many_998', 't_many_997', 't_many_996', 't_many_995', 't_many_994', 't_many_993'].concat([
          't_many_992',
          't_many_991',
          't_many_990',
          't_many_99',
        ]),
      );
      await page.click('#finished-turns li[data-turn="t_many_99"] a');
      await page.waitForSelector('#waterfall');
      assert.is(page.url().endsWith('#/turn/t_many_99'), true);

      const phone = await (await signedIn(browser, dashboard, PHONE)).newPage();
      await open(phone, dashboard, 'machines', '#finished-turns li[data-turn]');
      await phone.waitForSelector('[data-machine="session"]');
      assert.is(await overflow(phone), 0, 'machines fits 390 px');
      const session = phone.locator('[data-machine="session"]').first();
      const chart = session.locator('svg.chart');
      const whole = await chart.getAttribute('viewBox');
      await session.locator('.zoom-in').click();
      await session.locator('.zoom-in').click();
      assert.is(await session.locator('.chart-view').getAttribute('data-zoom'), '1.96');
      const [x = 0, y = 0, width = 0] = (whole ?? '').split(' ').map(Number);
      const zoomed = ((await chart.getAttribute('viewBox')) ?? '').split(' ').map(Number);
      assert.is(Math.round((zoomed[2] ?? 0) * 1.96), Math.round(width), 'a zoomed chart shows a part of itself');
      const box = await chart.boundingBox();
      if (!box) throw new Error('the chart is not drawn');
      await phone.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await phone.mouse.down();
      await phone.mouse.move(box.x + box.width / 2 + 40, box.y + box.height / 2, { steps: 4 });
      await phone.mouse.up();
      const panned = ((await chart.getAttribute('viewBox')) ?? '').split(' ').map(Number);
      assert.ok((panned[0] ?? 0) < (zoomed[0] ?? 0), `dragging right shows more of the left (${zoomed} → ${panned})`);
      await shot(phone, 'phone-machines-zoomed', false);
      await session.locator('.zoom-fit').click();
      assert.equal((await chart.getAttribute('viewBox'))?.split(' ').map(Number), [
        x,
        y,
        width,
        Number(whole?.split(' ')[3]),
      ]);
      assert.equal(problems, [], 'no script errors and no CSP violations');
    });
  },
);

test.run();
