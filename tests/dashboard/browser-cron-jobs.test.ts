// The config editor's Scheduled jobs: a job added on the page is in `tern cron list`, one removed there is gone,
// and a bad field is refused with the words `tern cron add` uses for the same flag.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCliAsync } from '../support/cli.js';
import { buildBundle, open, signedIn, withBrowser } from './browser-session.js';

buildBundle();

type Listed = { jobs: Array<{ id: string; name: string; schedule: unknown; job: unknown; created_by: unknown }> };

test('a job added in the config editor is in `tern cron list`, and gone from it when removed on the page', async () => {
  await withBrowser({}, async (dashboard, browser) => {
    // A gateway running in this process would run `tern cron` with this process's environment (another home).
    await dashboard.host.stop();
    const list = async (): Promise<Listed['jobs']> =>
      (JSON.parse((await runCliAsync(['cron', 'list', '--json'], dashboard.home.env)).stdout) as Listed).jobs;
    const page = await (await signedIn(browser, dashboard)).newPage();
    await open(page, dashboard, 'config', '#cron-jobs[aria-busy="false"]');
    assert.is(await page.locator('#cron-jobs').textContent(), 'No scheduled jobs yet.');

    await page.fill('[name="cron-name"]', 'stretch');
    await page.fill('[name="cron-when"]', '5x');
    await page.fill('[name="cron-what"]', 'stand up and stretch');
    await page.fill('[name="cron-channel"]', 'web');
    await page.fill('[name="cron-chat"]', 'tester');
    await page.click('#cron-add');
    await page.waitForSelector('#cron-problem:not([hidden])');
    const cli = await runCliAsync(
      ['cron', 'add', '--every', '5x', '--message', 'x', '--channel', 'web', '--chat', 'tester'],
      dashboard.home.env,
    );
    const said = await page.locator('#cron-problem').textContent();
    assert.is(said, '--every "5x" is not a duration (allowed: seconds such as 90, or 30s, 10m, 2h, 1d, 1h30m)');
    assert.ok(cli.stderr.includes(`(${said})`), cli.stderr);
    assert.equal(await list(), []);

    await page.fill('[name="cron-when"]', '2h');
    await page.click('#cron-add');
    await page.waitForSelector('#cron-jobs [data-cron-id]');
    const [added, ...others] = await list();
    assert.equal(others, []);
    assert.equal(
      [added?.name, added?.schedule, added?.job, added?.created_by],
      [
        'stretch',
        { kind: 'every', seconds: 7200 },
        { kind: 'agent_turn', channel: 'web', chat: 'tester', message: 'stand up and stretch' },
        { channel: 'dashboard' },
      ],
    );
    assert.is(await page.locator(`[data-cron-id="${added?.id}"] h4`).textContent(), 'stretch');

    await page.click('[aria-label="Remove job stretch"]');
    await page.waitForSelector('#cron-jobs [data-cron-id]', { state: 'detached' });
    assert.equal(await list(), []);
  });
});

test.run();
