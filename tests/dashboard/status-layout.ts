// What a person sees at a phone's width: nothing wider than the screen, no word split across two lines.
import type { Page } from 'playwright-core';

/**
 * Words (letters, digits, `_`) of the page's text drawn on more than one line: `overflow-wrap: anywhere` splits them
 * ("read_fil e"), `break-word` only a word longer than its whole line.
 */
export function brokenWords(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const broken: string[] = [];
    const walker = document.createTreeWalker(document.getElementById('page') ?? document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (const match of text.matchAll(/\w+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index ?? 0);
        range.setEnd(node, (match.index ?? 0) + match[0].length);
        const lines = new Set(Array.from(range.getClientRects(), (rect) => Math.round(rect.top)));
        if (lines.size > 1) broken.push(match[0]);
      }
    }
    return broken;
  });
}

/** `document.documentElement.scrollWidth`: at most the window's width when nothing overflows sideways. */
export const pageWidth = (page: Page): Promise<number> => page.evaluate(() => document.documentElement.scrollWidth);
