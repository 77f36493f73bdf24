import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { MemorySearch } from '../../bus/api-shapes.js';
import type { Dashboard } from '../support/dashboard-harness.js';
import { call } from '../launcher/launcher-harness.js';
import { buildBundle, open, shot, signedIn, withBrowser } from '../dashboard/browser-session.js';

buildBundle();

const settings = {
  model_name: 'fast',
  stream: false,
  max_tool_iterations: 5,
  loop_detection: { enabled: false, repeat_threshold: 3, critical_threshold: 6, window_size: 20 },
};
const AT = Date.UTC(2026, 2, 14, 9, 30, 0);

/** A finished turn of `who`'s chat, recorded as a turn records it (its message was routed earlier). */
function seedTurn(dashboard: Dashboard, who: string, turn: string, at: number, text: string, reply: string): void {
  const session_key = `v=1|agent=main|channel=cli|account=default|chat=direct:${who}`;
  const keys = { agent: 'main', session: `sk_v1_${who}`, turn };
  dashboard.host.publish({
    ...keys,
    at,
    type: 'turn.started',
    data: { message_id: `m_${turn}`, channel: 'cli', chat: `direct:${who}`, text, session_key, settings },
  });
  dashboard.host.publish({ ...keys, at: at + 2000, type: 'turn.completed', data: { reply, iterations: 1 } });
}

const search = async (dashboard: Dashboard, query: string) =>
  call(dashboard.launcher, `/api/memory/search?${query}`, { cookie: dashboard.cookie });

test('the Memory page searches every past chat; each hit cites session, turn and time and opens the turn', async () => {
  await withBrowser({}, async (dashboard, browser) => {
    seedTurn(dashboard, 'alice', 't_flat', AT, 'My flat in Lisbon is on Rua Augusta 12', 'Noted: Rua Augusta 12.');
    seedTurn(dashboard, 'bob', 't_garage', AT + 60_000, 'The garage code is 4417', 'I will remember 4417.');
    seedTurn(dashboard, 'bob', 't_stew', AT + 120_000, 'What should I cook tonight?', 'A bean stew.');
    const reply = await search(dashboard, 'q=garage%20code');
    const found = reply.body as MemorySearch;
    assert.is(reply.status, 200);
    assert.equal(found, {
      query: 'garage code',
      agent: 'main',
      results: [
        {
          source: 'sessions',
          score: found.results[0]!.score,
          session: 'sk_v1_bob',
          turn_id: 't_garage',
          at: new Date(AT + 60_000).toISOString(),
          snippet: 'user: The garage code is 4417\nassistant: I will remember 4417.',
          citation: `turn t_garage (${new Date(AT + 60_000).toISOString()})`,
        },
      ],
    });
    const flat = (await search(dashboard, 'q=Lisbon&limit=5')).body as MemorySearch;
    assert.equal(
      flat.results.map((r) => (r.source === 'sessions' ? [r.session, r.turn_id] : [r.source])),
      [['sk_v1_alice', 't_flat']],
    );
    const bad = await search(dashboard, 'limit=5');
    assert.equal(
      [bad.status, bad.body],
      [400, { error: { code: 'bad_query', message: 'q is required: the words to look for' } }],
    );
    assert.equal((await search(dashboard, 'q=x&limit=99')).status, 400);

    const page = await (await signedIn(browser, dashboard)).newPage();
    await open(page, dashboard, 'memory', '#memory-query');
    assert.equal(await page.locator('#nav a[href="#/memory"]').textContent(), 'Memory');
    await page.fill('#memory-query', 'Rua Augusta');
    await page.click('#memory-search');
    await page.waitForSelector('#memory-results li.memory-hit');
    const hits = await page.locator('#memory-results li.memory-hit').evaluateAll((items) =>
      items.map((item) => ({
        turn: item.querySelector('.memory-turn')?.getAttribute('href'),
        session: item.querySelector('.memory-session')?.textContent,
        at: item.querySelector('time')?.getAttribute('datetime'),
        snippet: item.querySelector('.memory-snippet')?.textContent,
      })),
    );
    assert.equal(hits, [
      {
        turn: '#/turn/t_flat',
        session: 'sk_v1_alice',
        at: new Date(AT).toISOString(),
        snippet: 'user: My flat in Lisbon is on Rua Augusta 12\nassistant: Noted: Rua Augusta 12.',
      },
    ]);
    await shot(page, 'memory-search');
    await page.fill('#memory-query', 'zanzibar');
    await page.click('#memory-search');
    await page.waitForSelector('#memory-results .memory-none');
    assert.equal(await page.textContent('#memory-results'), 'Nothing in memory matches "zanzibar".');
    await page.fill('#memory-query', 'Rua Augusta');
    await page.click('#memory-search');
    await page.click('#memory-results .memory-turn');
    await page.waitForSelector('#turn-events');
    assert.equal(new URL(page.url()).hash, '#/turn/t_flat');
  });
});

test.run();
