import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Screenshots for review go here (not committed). */
export const SCREENSHOTS = fileURLToPath(new URL('../output/screenshots/', import.meta.url));
mkdirSync(SCREENSHOTS, { recursive: true });

// Without the background-networking flags Chromium keeps trying hosts this closed network refuses.
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

const launch = (): Promise<Browser> => chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });

/** The Chromium this test worker shares between its files (tests/run-worker.mjs), started at the first use. */
let shared: Promise<Browser> | undefined;

function sharedChromium(): Promise<Browser> {
  if (shared) return shared;
  const started = launch();
  shared = started;
  started.then(
    (browser) => browser.once('disconnected', () => (shared = shared === started ? undefined : shared)),
    () => (shared = undefined),
  );
  // The runner disconnects a worker once it has no file left: the browser closes with it.
  process.once('disconnect', () => void started.then((browser) => browser.close()).catch(() => undefined));
  return started;
}

/**
 * Debian's Chromium, driven by playwright-core. In a test worker the files it runs share one Chromium: starting one
 * took ~2 s of CPU, and the browser files start ~30. Each caller's pages live in contexts of their own (cookies and
 * storage apart, as in a browser of their own), and its `close()` closes those contexts only. A file run on its own
 * gets a Chromium of its own.
 */
export async function launchChromium(): Promise<Browser> {
  if (!process.send) return launch();
  const browser = await sharedChromium();
  const mine: BrowserContext[] = [];
  const newContext: Browser['newContext'] = async (options) => {
    const context = await browser.newContext(options);
    mine.push(context);
    return context;
  };
  const own: Partial<Browser> = {
    newContext,
    // As Playwright's own: a page in a context of its own, which closes with the page.
    newPage: async (options) => {
      const context = await newContext(options);
      const page = await context.newPage();
      page.once('close', () => void context.close().catch(() => undefined));
      return page;
    },
    close: async () => {
      await Promise.all(mine.splice(0).map((context) => context.close().catch(() => undefined)));
    },
  };
  return new Proxy(browser, {
    get: (target, key) => {
      if (key in own) return own[key as keyof Browser];
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Script errors and Content-Security-Policy violations (failed requests with a 4xx status are expected). */
export function watchViolations(page: Page): string[] {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) violations.push(message.text());
  });
  page.on('pageerror', (error) => violations.push(error.message));
  return violations;
}
