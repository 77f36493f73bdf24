// `tern doctor`'s check of a WhatsApp channel in each of its modes: the Cloud API's phone number asked for with the
// access token (against the loopback Graph API), a linked device's session folder, an external bridge's WebSocket.
import { mkdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WebSocketServer } from 'ws';
import { channelDoctor } from '../doctor-checks.js';
import { freePort } from '../../support/telegram-emulator.js';
import { tempHome } from '../../support/temp-home.js';
import { WhatsAppGraphApi } from '../../support/whatsapp-graph-api.js';

test('doctor asks the Graph API for the phone number: the access token is ok, a wrong one an error', async () => {
  const home = tempHome();
  mkdirSync(home.home, { recursive: true });
  const graph = await WhatsAppGraphApi.start();
  try {
    const entry = (token: string) => ({
      enabled: true,
      type: 'whatsapp',
      settings: { ...graph.settings(), access_token: token },
    });
    const { stdout, check: got } = await channelDoctor(home, {
      whatsapp: entry(graph.accessToken),
      whatsapp_bad: entry('EAAGwrong'),
    });
    assert.equal(got('whatsapp'), ['ok', 'reachable as 15550000000']);
    assert.equal(got('whatsapp_bad'), [
      'error',
      'the phone number was refused (401 Invalid OAuth access token - Cannot parse access token)',
    ]);
    for (const secret of graph.secrets()) assert.not.ok(stdout.includes(secret), 'no secret shown');
  } finally {
    await graph.close();
    home.remove();
  }
});

test('doctor says whether a linked device was linked and whether a bridge answers', async () => {
  const home = tempHome();
  mkdirSync(home.home, { recursive: true });
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const bridge = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
  const closed = `ws://127.0.0.1:${await freePort()}`;
  const linkedDir = join(home.home, 'linked');
  mkdirSync(linkedDir, { recursive: true });
  writeFileSync(join(linkedDir, 'creds.json'), '{}');
  try {
    const entry = (settings: Record<string, unknown>) => ({ enabled: true, type: 'whatsapp', settings });
    const { check: got } = await channelDoctor(home, {
      wa_linked: entry({ use_native: true, session_store_path: linkedDir }),
      wa_new: entry({ use_native: true }),
      wa_bridge: entry({ bridge_url: bridge }),
      wa_down: entry({ bridge_url: closed }),
    });
    assert.equal(got('wa_linked'), ['ok', `linked (the device's keys are in ${linkedDir})`]);
    const fresh = join(home.home, 'whatsapp', 'wa_new');
    assert.equal(got('wa_new'), [
      'error',
      `not linked yet (no keys in ${fresh}): start the gateway and scan its QR code under Linked devices`,
    ]);
    assert.equal(got('wa_bridge'), ['ok', `the bridge at ${bridge} accepts a connection`]);
    assert.equal(got('wa_down'), ['error', `the bridge at ${closed} is unreachable (ECONNREFUSED)`]);
  } finally {
    await new Promise((resolve) => wss.close(resolve));
    home.remove();
  }
});

test.run();
