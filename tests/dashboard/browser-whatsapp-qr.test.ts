// The config page draws the WhatsApp linking code the channel emitted, and the newer one when the channel replaces it:
// the image on the page is read back with a QR decoder, so what is checked is what a phone would scan.
import { join } from 'node:path';
import jsQRModule from 'jsqr';
import type { Page } from 'playwright-core';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderQr } from '../../adapters/channels/whatsapp-qr.js';
import { writePairingQr } from '../../store/whatsapp-session.js';
import { buildBundle, open, signedIn, withBrowser } from './browser-session.js';

buildBundle();

// jsqr's CommonJS bundle exports the function itself, while its types declare it as the `default` export.
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

const FIRST = '2@Tern1stLinkingCode,base64key1=,identity1=,adv1=';
const SECOND = '2@Tern2ndLinkingCode,base64key2=,identity2=,adv2=';

/** The text of the QR code drawn in the channel's form, decoded from the image's pixels as the page shows them. */
async function drawnCode(page: Page): Promise<string | undefined> {
  const pixels = await page.locator('[data-qr="wa"] img').evaluate(async (img: HTMLImageElement) => {
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const context = canvas.getContext('2d')!;
    context.drawImage(img, 0, 0);
    const data = context.getImageData(0, 0, canvas.width, canvas.height);
    return { width: data.width, height: data.height, rgba: Array.from(data.data) };
  });
  return jsQR(Uint8ClampedArray.from(pixels.rgba), pixels.width, pixels.height)?.data;
}

test('the form draws the QR code the WhatsApp channel emitted, and the new one when it changes', async () => {
  const channels = {
    web: { enabled: true, type: 'pico' },
    wa: { enabled: false, type: 'whatsapp', settings: { use_native: true } },
  };
  await withBrowser({ channels }, async (dashboard, browser) => {
    const dir = join(dashboard.home.home, 'whatsapp', 'wa');
    writePairingQr(dir, (await renderQr(FIRST)).dataUrl, new Date('2026-11-28T21:00:00.000Z'));
    const page = await (await signedIn(browser, dashboard)).newPage();
    await open(page, dashboard, 'config', '[data-qr="wa"] img');
    assert.is(await drawnCode(page), FIRST);

    writePairingQr(dir, (await renderQr(SECOND)).dataUrl, new Date('2026-11-28T21:00:20.000Z'));
    // The form asks for a newer code every 3 s: Playwright's default 30 s leaves a loaded machine room for it.
    await page.waitForSelector('[data-qr="wa"][data-qr-at="2026-11-28T21:00:20.000Z"] img');
    assert.is(await drawnCode(page), SECOND);
  });
});

test.run();
