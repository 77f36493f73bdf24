// The dashboard as users meet it: a signed-in first load in headless Chromium (navigation start to a drawn
// chat page, and the bytes it fetched), a web chat reply through the gateway (dispatcher, pico channel, streamed
// frames), an event-log query over 10,000 events, and bus-to-socket latency of /api/live.
import { spawnSync } from 'node:child_process';
import { performance as clock } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import WebSocket from 'ws';
import { chatSocket, replyStreamed, startDashboard, type Dashboard } from '../tests/support/dashboard-harness.js';
import { percentile, round, type BenchRow } from './row.js';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const LOADS = 5;
const EVENTS = 10_000;
const QUERIES = 20;
const PINGS = 200;
const CHATS = 20;

const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);

async function firstLoad(dashboard: Dashboard): Promise<BenchRow[]> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
  const { hostname } = new URL(dashboard.launcher.url);
  const [name = '', value = ''] = dashboard.cookie.split('=');
  const times: number[] = [];
  let bytes = 0;
  try {
    for (let run = 0; run < LOADS; run++) {
      const context = await browser.newContext();
      await context.addCookies([{ name, value, domain: hostname, path: '/', httpOnly: true, sameSite: 'Strict' }]);
      const page = await context.newPage();
      let fetched = 0;
      page.on('response', (response) => void response.body().then((body) => (fetched += body.length), () => {}));
      await page.goto(dashboard.launcher.url);
      await page.waitForSelector('#chat-input');
      // Measured by the page from navigation start, so a fresh renderer process's start-up is not counted:
      // the deferred bundle draws the chat page before DOMContentLoaded ends.
      times.push(await page.evaluate(() => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).domContentLoadedEventEnd));
      await page.waitForLoadState('networkidle');
      bytes = fetched;
      await context.close();
    }
  } finally {
    await browser.close();
  }
  return [
    { name: 'launcher.first_load_ms', value: round(median(times)), unit: 'ms' },
    { name: 'launcher.first_load_kb', value: round(bytes / 1024), unit: 'KiB' },
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
    dashboard.host.publish({ type: 'tool.completed', session: `s${i % 50}`, turn: `t${i % 500}`, data: { call_id: `c${i}`, name: 'read_file', ok: true, content: 'x'.repeat(200) } });
  }
  await dashboard.host.log()?.flushed();
  const times: number[] = [];
  for (let run = 0; run < QUERIES; run++) {
    const started = clock.now();
    const response = await fetch(`${dashboard.launcher.url}/api/events?type=tool.*&limit=1000`, { headers: { cookie: dashboard.cookie } });
    await response.json();
    times.push(clock.now() - started);
  }
  return { name: 'launcher.events_query_10k_ms', value: round(median(times)), unit: 'ms' };
}

async function liveLatency(dashboard: Dashboard): Promise<BenchRow> {
  const socket = new WebSocket(`${dashboard.launcher.url.replace('http', 'ws')}/api/live`, { headers: { cookie: dashboard.cookie, origin: dashboard.launcher.url } });
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
  const build = spawnSync(process.execPath, [fileURLToPath(new URL('../web/build.mjs', import.meta.url))], { encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`the dashboard bundle did not build: ${build.stderr}`);
  const dashboard = await startDashboard();
  try {
    return [...(await firstLoad(dashboard)), await chatReply(dashboard), await eventsQuery(dashboard), await liveLatency(dashboard)];
  } finally {
    await dashboard.close();
  }
}
