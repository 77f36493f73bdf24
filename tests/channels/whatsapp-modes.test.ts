import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';

import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WebSocketServer, type WebSocket } from 'ws';
import { ChannelError, type ChannelMessage } from '../../adapters/channels/channel.js';
import { WhatsAppBridgeChannel } from '../../adapters/channels/whatsapp-bridge.js';
import { WhatsAppCloudChannel } from '../../adapters/channels/whatsapp-cloud.js';
import { WhatsAppNativeChannel } from '../../adapters/channels/whatsapp-native.js';
import { renderQr } from '../../adapters/channels/whatsapp-qr.js';
import { ownerOnlySession, writePairingQr } from '../../store/whatsapp-session.js';
import { WhatsAppGraphApi } from '../support/whatsapp-graph-api.js';

const hooks = (messages: ChannelMessage[]) => ({
  onMessage: (m: ChannelMessage) => void messages.push(m),
  onConnected: () => undefined,
  onFailed: () => undefined,
});

test('bridge: frames of the peer bridge protocol in, {"type":"message","to","content"} out', async () => {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const port = (wss.address() as AddressInfo).port;
  const received: unknown[] = [];
  const connected = new Promise<WebSocket>((resolve) =>
    wss.on('connection', (ws) => {
      ws.on('message', (raw) => received.push(JSON.parse(raw.toString())));
      resolve(ws);
    }),
  );
  const channel = new WhatsAppBridgeChannel(`ws://127.0.0.1:${port}`);
  const messages: ChannelMessage[] = [];
  try {
    await channel.start(hooks(messages));
    const bridge = await connected;
    bridge.send(
      JSON.stringify({
        type: 'message',
        id: 'ABC1',
        from: '15551234',
        chat: '15551234',
        content: 'hi there',
        from_name: 'Alice',
      }),
    );
    bridge.send(
      JSON.stringify({
        type: 'message',
        id: 'ABC2',
        from: '15551234',
        chat: '1203@g.us',
        content: 'in a group',
        media: ['/tmp/x/voice.ogg', '/tmp/x/pic.jpg'],
      }),
    );
    bridge.send(JSON.stringify({ type: 'status', state: 'connected' }));
    const deadline = Date.now() + 5000;
    while (messages.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(messages[0], {
      messageId: 'ABC1',
      chat: 'direct:15551234',
      replyTo: '15551234',
      sender: '15551234',
      senderAliases: ['15551234', 'Alice'],
      text: 'hi there',
      mentioned: false,
    });
    assert.equal(
      [messages[1]?.chat, messages[1]?.audio, messages[1]?.media],
      [
        'group:1203@g.us',
        [{ fileId: '/tmp/x/voice.ogg', mime: 'audio/ogg', name: 'voice.ogg' }],
        [{ kind: 'image', fileId: '/tmp/x/pic.jpg', mime: 'application/octet-stream', name: 'file.jpg' }],
      ],
    );
    assert.is(await channel.send('15551234', 'echo: **hi**'), 'bridge-1');
    while (received.length < 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(received, [{ type: 'message', to: '15551234', content: 'echo: *hi*' }]);
  } finally {
    await channel.stop();
    for (const client of wss.clients) client.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  }
});

test('cloud: the verification request echoes the challenge only with the verify token', async () => {
  const api = await WhatsAppGraphApi.start();
  const settings = api.settings();
  const channel = new WhatsAppCloudChannel({
    phoneNumberId: String(settings.phone_number_id),
    accessToken: api.accessToken,
    appSecret: api.appSecret,
    verifyToken: api.verifyToken,
    apiBase: api.url,
  });
  try {
    const ask = (token: string) =>
      channel.webhook({
        method: 'GET',
        headers: {},
        body: Buffer.alloc(0),
        query: new URLSearchParams({
          'hub.mode': 'subscribe',
          'hub.verify_token': token,
          'hub.challenge': '1158201444',
        }),
      });
    assert.equal(await ask(api.verifyToken), { status: 200, body: '1158201444', contentType: 'text/plain' });
    assert.is((await ask('wrong')).status, 403);
  } finally {
    await api.close();
  }
});

test('cloud: a body signed with another secret is 401 and reaches no one', async () => {
  const api = await WhatsAppGraphApi.start();
  const channel = new WhatsAppCloudChannel({
    phoneNumberId: '105000000000001',
    accessToken: api.accessToken,
    appSecret: api.appSecret,
    verifyToken: api.verifyToken,
    apiBase: api.url,
  });
  const messages: ChannelMessage[] = [];
  try {
    await channel.start(hooks(messages));
    const body = api.messageBody('15550001', { id: 'wamid.1', type: 'text', text: { body: 'forged' } });
    const post = (signature: string) =>
      channel.webhook({
        method: 'POST',
        headers: { 'x-hub-signature-256': signature },
        body: Buffer.from(body),
        query: new URLSearchParams(),
      });
    assert.is((await post(api.sign(body, 'another-secret'))).status, 401);
    assert.is((await post('')).status, 401);
    assert.equal(messages, []);
    assert.is((await post(api.sign(body))).status, 200);
    assert.equal(
      messages.map((m) => m.text),
      ['forged'],
    );
  } finally {
    await api.close();
  }
});

test('native: the QR code renders for the terminal and as a PNG data URL; the session is owner-only', async () => {
  const { terminal, dataUrl } = await renderQr('2@AbCdEf,ghIJkl,mnOPqr==');
  assert.ok(terminal.split('\n').length > 10 && /[▀▄█]/.test(terminal), 'block characters for the terminal');
  assert.ok(dataUrl.startsWith('data:image/png;base64,'));
  const dir = join(mkdtempSync(join(tmpdir(), 'tern-wa-')), 'session');
  try {
    ownerOnlySession(dir);
    writeFileSync(join(dir, 'creds.json'), '{}', { mode: 0o644 });
    ownerOnlySession(dir);
    writePairingQr(dir, dataUrl, new Date('2026-11-28T12:00:00Z'));
    assert.is(statSync(dir).mode & 0o777, 0o700);
    assert.is(statSync(join(dir, 'creds.json')).mode & 0o777, 0o600);
    assert.is(statSync(join(dir, 'qr.json')).mode & 0o777, 0o600);
    assert.equal(JSON.parse(readFileSync(join(dir, 'qr.json'), 'utf8')), {
      data_url: dataUrl,
      at: '2026-11-28T12:00:00.000Z',
    });
  } finally {
    rmSync(join(dir, '..'), { recursive: true, force: true });
  }
});

test('native: without Baileys installed, use_native fails with the command that installs it', async () => {
  const channel = new WhatsAppNativeChannel({ sessionDir: join(tmpdir(), 'unused'), showQr: () => undefined });
  const error = await channel.start(hooks([])).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(error instanceof ChannelError);
  assert.is((error as ChannelError).code, 'bad_settings');
  assert.match((error as ChannelError).message, 'npm install @whiskeysockets/baileys');
});

test.run();
