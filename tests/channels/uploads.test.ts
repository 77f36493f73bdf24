// Files to Slack and Discord through their own clients (Bolt's web client, @discordjs/rest's client), against loopback
// servers that answer as the platforms' APIs do; the upload functions are what the channels' sendFile runs.
// Our HTTP client (undici 7) loads first, as in a gateway: its global dispatcher is the one @discordjs/rest would find.
import '../../adapters/http/client.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { webApi } from '@slack/bolt';
import { REST } from '@discordjs/rest';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Response } from 'undici';
import { uploadToDiscord } from '../../adapters/channels/discord-upload.js';
import { uploadToSlack } from '../../adapters/channels/slack-upload.js';
import { json, startVendorServer, type RecordedRequest } from '../support/vendor-server.js';
import { tempHome } from '../support/temp-home.js';

const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');
const form = (request: RecordedRequest) =>
  new Response(request.body, { headers: { 'content-type': String(request.headers['content-type']) } }).formData();

test('Slack: the bytes go to the upload URL, then the file is shared in the thread with the caption', async () => {
  const server = await startVendorServer();
  const home = tempHome();
  try {
    const path = join(home.home, 'tern.png');
    writeFileSync(path, png);
    server.reply(
      json({ ok: true, upload_url: `${server.url}/upload/F123`, file_id: 'F123' }),
      { status: 200, headers: { 'content-type': 'text/plain' }, chunks: ['OK - 20'] },
      json({ ok: true, files: [{ id: 'F123', title: 'tern.png' }] }),
    );
    const client = new webApi.WebClient('xoxb-test', {
      slackApiUrl: `${server.url}/api/`,
      retryConfig: { retries: 0 },
    });
    const id = await uploadToSlack(client, 'C42#1700000000.000100', {
      kind: 'image',
      path,
      mime: 'image/png',
      caption: 'A tern.',
    });
    assert.is(id, 'F123');
    const [ask, upload, complete] = server.requests;
    assert.is(ask!.url, '/api/files.getUploadURLExternal');
    assert.equal(Object.fromEntries(new URLSearchParams(ask!.body.toString())), {
      filename: 'tern.png',
      length: String(png.length),
    });
    assert.is(upload!.url, '/upload/F123');
    assert.ok(upload!.body.includes(png), 'the upload carries the file bytes');
    assert.is(complete!.url, '/api/files.completeUploadExternal');
    const shared = Object.fromEntries(new URLSearchParams(complete!.body.toString()));
    assert.equal(
      { ...shared, files: JSON.parse(shared.files!) },
      {
        channel_id: 'C42',
        thread_ts: '1700000000.000100',
        initial_comment: 'A tern.',
        files: [{ id: 'F123', title: 'tern.png' }],
      },
    );
  } finally {
    await server.close();
    home.remove();
  }
});

test('Discord: one multipart message with the caption as content and the file as its attachment', async () => {
  const server = await startVendorServer();
  const home = tempHome();
  try {
    const path = join(home.home, 'tern.png');
    writeFileSync(path, png);
    server.reply(json({ id: '9001', channel_id: '555', content: 'A tern.', attachments: [] }));
    const rest = new REST({ api: `${server.url}/api`, retries: 0 }).setToken('bot-token');
    assert.is(
      await uploadToDiscord(rest, '555', { kind: 'image', path, mime: 'image/png', caption: 'A tern.' }),
      '9001',
    );
    const [sent] = server.requests;
    assert.equal(
      [sent!.method, sent!.url, sent!.headers.authorization],
      ['POST', '/api/v10/channels/555/messages', 'Bot bot-token'],
    );
    const parts = await form(sent!);
    assert.equal(JSON.parse(String(parts.get('payload_json'))), {
      content: 'A tern.',
      attachments: [{ id: 0, filename: 'tern.png' }],
    });
    const file = parts.get('files[0]') as unknown as {
      name: string;
      type: string;
      arrayBuffer(): Promise<ArrayBuffer>;
    };
    assert.equal([file.name, file.type, Buffer.from(await file.arrayBuffer())], ['tern.png', 'image/png', png]);
  } finally {
    await server.close();
    home.remove();
  }
});

test.run();
