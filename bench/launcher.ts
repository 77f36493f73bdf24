// The dashboard as users meet it: a signed-in first load in headless Chromium (navigation start to a drawn
// chat page, and the bytes it fetched), the bundle's gzip size, the turn view of a 40-event turn drawn, a web
// chat reply through the gateway (dispatcher, pico channel, streamed frames), an event-log query over 10,000
// events, bus-to-socket latency of /api/live, and the machines page with 1,000 finished turns in the log.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { performance as clock } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import type { EventDraft } from '../bus/index.js';
import WebSocket from 'ws';
import { chatSocket, replyStreamed, startDashboard, type Dashboard } from '../tests/support/dashboard-harness.js';
import { seedManyTurns } from '../tests/dashboard/many-turns.js';
import { percentile, round, type BenchRow } from './row.js';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const LOADS = 5;
const EVENTS = 10_000;
const QUERIES = 20;
const PINGS = 200;
const CHATS = 20;
const TURN_VIEWS = 15;
const TURN_EVENTS = 40;
const MANY_TURNS = 1000;
const MACHINES_VIEWS = 10;

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

async function signedInPage(browser: Browser, dashboard: Dashboard) {
  const { hostname } = new URL(dashboard.launcher.url);
  const [name = '', value = ''] = dashboard.cookie.split('=');
  const context = await browser.newContext();
  await context.addCookies([{ name, value, domain: hostname, path: '/', httpOnly: true, sameSite: 'Strict' }]);
  return { context, page: await context.newPage() };
}

async function firstLoad(dashboard: Dashboard, browser: Browser): Promise<BenchRow[]> {
  const times: number[] = [];
  let bytes = 0;
  for (let run = 0; run < LOADS; run++) {
    const { context, page } = await signedInPage(browser, dashboard);
    let fetched = 0;
    page.on(
      'response',
      (response) =>
        void response.body().then(
          (body) => (fetched += body.length),
          () => {},
        ),
    );
    await page.goto(dashboard.launcher.url);
    await page.waitForSelector('#chat-input');
    // Measured by the page from navigation start, so a fresh renderer process's start-up is not counted:
    // the deferred bundle draws the chat page before DOMContentLoaded ends.
    times.push(
      await page.evaluate(
        () => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).domContentLoadedEventEnd,
      ),
    );
    await page.waitForLoadState('networkidle');
    bytes = fetched;
    await context.close();
  }
  return [
    { name: 'launcher.first_load_ms', value: round(median(times)), unit: 'ms' },
    { name: 'launcher.first_load_kb', value: round(bytes / 1024), unit: 'KiB' },
  ];
}

/** Every page is in one script and one style sheet: what a browser downloads, compressed. */
function bundleGzip(): BenchRow {
  const files = ['../web/dist/app.js', '../web/dist/app.css', '../web/index.html'].map((path) =>
    readFileSync(new URL(path, import.meta.url)),
  );
  const bytes = files.reduce((sum, file) => sum + gzipSync(file, { level: 9 }).length, 0);
  return { name: 'launcher.bundle_gzip_kb', value: round(bytes / 1024), unit: 'KiB' };
}

/** A turn of 40 events: the prompt, six model calls that each ask for a tool, and the reply, 10 ms apart. */
function fortyEventTurn(turn: string, start: number): EventDraft[] {
  const keys = { agent: 'main', session: 'sk_v1_bench', turn };
  const settings = {
    model_name: 'fast',
    stream: true,
    max_tool_iterations: 20,
    loop_detection: { enabled: false, repeat_threshold: 3, critical_threshold: 6, window_size: 20 },
  };
  const usage = { input_tokens: 900, output_tokens: 40 };
  const drafts: EventDraft[] = [
    {
      ...keys,
      type: 'turn.started',
      data: {
        message_id: 'm',
        channel: 'pico',
        chat: 'direct:bench',
        text: 'look through the workspace',
        session_key: 'v=1|agent=main|channel=pico|account=web|chat=direct:bench',
        settings,
      },
    },
    {
      ...keys,
      type: 'prompt.built',
      data: {
        system: 'You are Tern.',
        messages: [{ role: 'user', content: 'look through the workspace' }],
        tools: ['read_file', 'list_dir'],
      },
    },
  ];
  for (let call = 1; call <= 6; call++) {
    const id = `call_${call}`;
    drafts.push(
      {
        ...keys,
        type: 'provider.requested',
        data: { model_name: 'fast', stream: true, iteration: call, message_count: call * 2 },
      },
      ...(call === 1
        ? []
        : [{ ...keys, type: 'provider.chunk' as const, data: { kind: 'text' as const, delta: 'Next, ' } }]),
      { ...keys, type: 'provider.chunk', data: { kind: 'text', delta: `file ${call}.` } },
      {
        ...keys,
        type: 'provider.responded',
        data: {
          text: `Next, file ${call}.`,
          tool_calls: [{ id, name: 'read_file', arguments: { path: `notes/${call}.md` } }],
          usage,
          iteration: call,
        },
      },
      {
        ...keys,
        type: 'tool.requested',
        data: { call_id: id, name: 'read_file', arguments: { path: `notes/${call}.md` } },
      },
      {
        ...keys,
        type: 'tool.completed',
        data: { call_id: id, name: 'read_file', ok: call !== 4, content: `line\n`.repeat(40) },
      },
    );
  }
  drafts.push(
    {
      ...keys,
      type: 'provider.requested',
      data: { model_name: 'fast', stream: true, iteration: 7, message_count: 14 },
    },
    {
      ...keys,
      type: 'provider.responded',
      data: { text: 'All six notes are read.', tool_calls: [], usage, iteration: 7 },
    },
    { ...keys, type: 'turn.completed', data: { reply: 'All six notes are read.', iterations: 7 } },
  );
  if (drafts.length !== TURN_EVENTS) throw new Error(`the bench turn has ${drafts.length} events, not ${TURN_EVENTS}`);
  return drafts.map((draft, index) => ({ ...draft, at: start + index * 10 }) as EventDraft);
}

/**
 * From following a link to the turn view (the app already loaded) to its waterfall, conversation and 40 event rows
 * drawn.
 */
async function turnView(dashboard: Dashboard, browser: Browser): Promise<BenchRow> {
  for (const draft of fortyEventTurn('t_bench40', Date.now())) dashboard.host.publish(draft);
  await dashboard.host.log()?.committed();
  const { context, page } = await signedInPage(browser, dashboard);
  const times: number[] = [];
  try {
    await page.goto(dashboard.launcher.url);
    await page.waitForSelector('#chat-input');
    for (let run = 0; run < TURN_VIEWS; run++) {
      await page.evaluate(() => (window.location.hash = '#/sessions'));
      await page.waitForSelector('#session-search');
      times.push(
        await page.evaluate(async (events) => {
          const started = performance.now();
          window.location.hash = '#/turn/t_bench40';
          // Checked once a frame (no named helper inside: tsx would wrap it in one the page does not have).
          while (
            document.querySelectorAll('#turn-events .event-row').length !== events ||
            !document.querySelector('#waterfall .wf-row')
          ) {
            await new Promise((resolve) => requestAnimationFrame(resolve));
          }
          // The frame that shows it.
          await new Promise((resolve) => requestAnimationFrame(resolve));
          return performance.now() - started;
        }, TURN_EVENTS),
      );
    }
  } finally {
    await context.close();
  }
  return { name: 'launcher.turn_view_ms', value: round(median(times)), unit: 'ms' };
}

/**
 * From following the link to the machines page (the app already loaded) to its live actors and first page of
 * finished turns drawn, with 1,000 turns in 50 sessions in the log; and how many elements the page then holds.
 */
async function machinesView(dashboard: Dashboard, browser: Browser): Promise<BenchRow[]> {
  await seedManyTurns(dashboard, MANY_TURNS, 50);
  const { context, page } = await signedInPage(browser, dashboard);
  const times: number[] = [];
  let nodes = 0;
  try {
    await page.goto(dashboard.launcher.url);
    await page.waitForSelector('#chat-input');
    for (let run = 0; run < MACHINES_VIEWS; run++) {
      await page.evaluate(() => (window.location.hash = '#/sessions'));
      await page.waitForSelector('#session-search');
      times.push(
        await page.evaluate(async () => {
          const started = performance.now();
          window.location.hash = '#/machines';
          while (
            document.querySelectorAll('#finished-turns li[data-turn]').length === 0 ||
            !document.querySelector('#machines-board [data-machine="session"]')
          ) {
            await new Promise((resolve) => requestAnimationFrame(resolve));
          }
          await new Promise((resolve) => requestAnimationFrame(resolve));
          return performance.now() - started;
        }),
      );
      nodes = await page.evaluate(() => document.getElementsByTagName('*').length);
    }
  } finally {
    await context.close();
  }
  return [
    { name: 'launcher.machines_render_ms_1000_turns', value: round(median(times)), unit: 'ms' },
    { name: 'launcher.machines_dom_nodes_1000_turns', value: nodes, unit: 'nodes' },
  ];
}

/** `message.send` to `typing.stop`: one turn of the loopback model, streamed in three chunks to the socket. */
async function chatReply(dashboard: Dashboard): Promise<BenchRow> {
  const chat = await chatSocket(dashboard);
  const times: number[] = [];
  try {
    for (let run = 0; run < CHATS; run++) {
      replyStreamed(dashboard.vendor, ['Hello ', 'from ', 'the bench']);
      const started = clock.now();
      await chat.send(`message ${run}`, 'bench');
      times.push(clock.now() - started);
    }
  } finally {
    chat.socket.close();
  }
  return { name: 'launcher.chat_reply_p50_ms', value: round(median(times), 2), unit: 'ms' };
}

async function eventsQuery(dashboard: Dashboard): Promise<BenchRow> {
  for (let i = 0; i < EVENTS; i++) {
    dashboard.host.publish({
      type: 'tool.completed',
      session: `s${i % 50}`,
      turn: `t${i % 500}`,
      data: { call_id: `c${i}`, name: 'read_file', ok: true, content: 'x'.repeat(200) },
    });
  }
  await dashboard.host.log()?.flushed();
  const times: number[] = [];
  for (let run = 0; run < QUERIES; run++) {
    const started = clock.now();
    const response = await fetch(`${dashboard.launcher.url}/api/events?type=tool.*&limit=1000`, {
      headers: { cookie: dashboard.cookie },
    });
    await response.json();
    times.push(clock.now() - started);
  }
  return { name: 'launcher.events_query_10k_ms', value: round(median(times)), unit: 'ms' };
}

async function liveLatency(dashboard: Dashboard): Promise<BenchRow> {
  const socket = new WebSocket(`${dashboard.launcher.url.replace('http', 'ws')}/api/live`, {
    headers: { cookie: dashboard.cookie, origin: dashboard.launcher.url },
  });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const latencies: number[] = [];
  try {
    for (let i = 0; i < PINGS; i++) {
      const received = new Promise<void>((resolve) => socket.once('message', () => resolve()));
      const started = clock.now();
      dashboard.host.publish({ type: 'heartbeat.ticked', data: { outcome: 'skipped', reason: `bench ${i}` } });
      await received;
      latencies.push(clock.now() - started);
    }
  } finally {
    socket.close();
  }
  return { name: 'launcher.live_p50_ms', value: round(median(latencies), 3), unit: 'ms' };
}

export async function bench(): Promise<BenchRow[]> {
  const build = spawnSync(process.execPath, [fileURLToPath(new URL('../web/build.mjs', import.meta.url))], {
    encoding: 'utf8',
  });
  if (build.status !== 0) throw new Error(`the dashboard bundle did not build: ${build.stderr}`);
  const dashboard = await startDashboard();
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
  try {
    const pages = [
      ...(await firstLoad(dashboard, browser)),
      bundleGzip(),
      await turnView(dashboard, browser),
      ...(await machinesView(dashboard, browser)),
    ];
    return [...pages, await chatReply(dashboard), await eventsQuery(dashboard), await liveLatency(dashboard)];
  } finally {
    await browser.close();
    await dashboard.close();
  }
}
