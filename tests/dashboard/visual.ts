// Screenshots compared with committed baselines (tests/dashboard/baselines/), and what a phone must never show.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import type { Locator, Page } from 'playwright-core';
import { SCREENSHOTS } from '../support/browser.js';

export const BASELINES = fileURLToPath(new URL('./baselines/', import.meta.url));
/** `npm run test:visual:update` sets it: the screenshots become the new baselines. */
export const UPDATING = process.env.TERN_UPDATE_BASELINES === '1';
/** Pixels that may differ (anti-aliasing, a clock's digits) before a page counts as changed. */
export const MAX_CHANGED = 0.02;

/**
 * The share of pixels of this window's screenshot that differ from the baseline `<name>.png` (1 when it has another
 * size or there is none); when updating, the screenshot is written as the baseline and 0 returned. A difference is
 * written next to the other screenshots as `visual-<name>-diff.png` for a person to look at.
 */
export async function changedFromBaseline(page: Page, name: string, mask: Locator[]): Promise<number> {
  const shot = await page.screenshot({ animations: 'disabled', caret: 'hide', mask, maskColor: '#888' });
  const path = `${BASELINES}${name}.png`;
  if (UPDATING) {
    mkdirSync(BASELINES, { recursive: true });
    writeFileSync(path, shot);
    return 0;
  }
  writeFileSync(`${SCREENSHOTS}visual-${name}.png`, shot);
  const diffPath = `${SCREENSHOTS}visual-${name}-diff.png`;
  rmSync(diffPath, { force: true });
  if (!existsSync(path)) return 1;
  const baseline = readFileSync(path);
  // Chromium encodes the same pixels to the same bytes: nothing to decode. Encoding a diff costs more than the
  // comparison, so one is written only when a pixel differs.
  if (shot.equals(baseline)) return 0;
  const actual = PNG.sync.read(shot);
  const expected = PNG.sync.read(baseline);
  if (actual.width !== expected.width || actual.height !== expected.height) return 1;
  const diff = new PNG({ width: actual.width, height: actual.height });
  const changed = pixelmatch(expected.data, actual.data, diff.data, actual.width, actual.height, { threshold: 0.1 });
  if (changed > 0) writeFileSync(diffPath, PNG.sync.write(diff));
  return changed / (actual.width * actual.height);
}

/**
 * Words (up to 24 letters or `_`: a hyphen is a fair place to wrap; ids and hashes may wrap anywhere) that the page
 * draws over two lines: what `overflow-wrap: anywhere` and `word-break: break-all` do to "builtin" in a narrow column.
 */
export function brokenWords(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const broken: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (const match of text.matchAll(/[A-Za-z][A-Za-z_]{1,23}/g)) {
        if (/[A-Za-z_]/.test(text[match.index + match[0].length] ?? '')) continue;
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = new Set(
          Array.from(range.getClientRects())
            .filter((r) => r.width > 0)
            .map((r) => Math.round(r.top)),
        );
        if (tops.size > 1) broken.push(match[0]);
      }
    }
    return broken;
  });
}
