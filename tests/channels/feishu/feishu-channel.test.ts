// The Feishu channel's sends that the echo model of the gateway tests does not reach: files and edits (a streaming
// reply's), through the channel's interface against the loopback Feishu.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ChannelError } from '../../../adapters/channels/channel.js';
import { FeishuChannel } from '../../../adapters/channels/feishu/feishu.js';
import { tempHome, type TempHome } from '../../support/temp-home.js';
import { FeishuEmulator } from './feishu-emulator.js';

interface Context {
  feishu: FeishuEmulator;
  channel: FeishuChannel;
  home: TempHome;
}

const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');
const channel = suite<Context>("the Feishu channel's files and edits");

channel.before(async (context) => {
  context.feishu = await FeishuEmulator.start();
  context.home = tempHome();
  context.channel = new FeishuChannel({
    appId: context.feishu.appId,
    appSecret: context.feishu.appSecret,
    encryptKey: '',
    verificationToken: '',
    domain: context.feishu.url,
    reactions: [],
  });
  await context.channel.start({ onMessage: () => {}, onConnected: () => {}, onFailed: () => {} });
});

channel.after(async (context) => {
  await context.channel?.stop();
  await context.feishu?.close();
  context.home?.remove();
});

channel('an image is uploaded as a message image, then its caption follows it', async ({ feishu, channel, home }) => {
  const path = join(home.home, 'tern.png');
  writeFileSync(path, png);
  const id = await channel.sendFile('oc_files', { kind: 'image', path, mime: 'image/png', caption: 'A tern.' });
  const [upload] = feishu.uploads;
  assert.equal([upload?.fields, upload?.bytes], [{ image_type: 'message' }, png]);
  const sent = feishu.sent.filter((m) => m.chatId === 'oc_files');
  assert.equal(
    sent.map(({ type, text }) => ({ type, text })),
    [
      { type: 'image', text: JSON.stringify({ image_key: upload!.key }) },
      { type: 'interactive', text: 'A tern.' },
    ],
  );
  assert.is(id, sent[0]!.id);
});

channel(
  'another file is uploaded as a stream with its name and sent as a file message',
  async ({ feishu, channel, home }) => {
    const path = join(home.home, 'notes.txt');
    writeFileSync(path, 'three lines\nof notes\n');
    await channel.sendFile('oc_notes', { kind: 'file', path });
    const upload = feishu.uploads.at(-1);
    assert.equal(
      [upload?.fields, upload?.bytes.toString()],
      [{ file_type: 'stream', file_name: 'notes.txt' }, 'three lines\nof notes\n'],
    );
    assert.equal(
      feishu.sent.filter((m) => m.chatId === 'oc_notes').map((m) => [m.type, m.text]),
      [['file', JSON.stringify({ file_key: upload!.key })]],
    );
  },
);

channel('an edit patches the card: a streaming reply grows in one message', async ({ feishu, channel }) => {
  const id = await channel.send('oc_stream', 'The answer');
  await channel.edit('oc_stream', id, 'The answer is **42**.');
  const [message] = feishu.sent.filter((m) => m.chatId === 'oc_stream');
  assert.equal(message?.versions, ['The answer', 'The answer is **42**.']);
});

channel('a reply that went as plain text cannot be edited: the channel says so', async ({ feishu, channel }) => {
  feishu.refuseCards = true;
  const id = await channel.send('oc_plain', 'plain');
  feishu.refuseCards = false;
  try {
    await channel.edit('oc_plain', id, 'plain, longer');
    assert.unreachable('the edit went through');
  } catch (error) {
    assert.instance(error, ChannelError);
    assert.is((error as ChannelError).code, 'platform');
  }
  assert.equal(
    feishu.sent.filter((m) => m.chatId === 'oc_plain').map((m) => m.versions),
    [['plain']],
  );
});

channel.run();
