// The WeCom channel's files, which the echo model of the gateway tests does not send: through the channel's interface
// against the loopback long connection.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { WeComChannel } from '../../../adapters/channels/wecom/wecom.js';
import { tempHome, type TempHome } from '../../support/temp-home.js';
import { WeComEmulator } from './wecom-emulator.js';

interface Context {
  wecom: WeComEmulator;
  channel: WeComChannel;
  home: TempHome;
  heard: string[];
}

const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');
const files = suite<Context>("the WeCom channel's files");

files.before(async (context) => {
  context.wecom = await WeComEmulator.start();
  context.home = tempHome();
  const { botId, secret, url } = context.wecom;
  context.channel = new WeComChannel({ botId, secret, wsUrl: url, thinking: false });
  context.heard = [];
  const onMessage = (message: { text: string }): void => void context.heard.push(message.text);
  await context.channel.start({ onMessage, onConnected: () => {}, onFailed: () => {} });
});

files.after(async (context) => {
  await context.channel?.stop();
  await context.wecom?.close();
  context.home?.remove();
});

files('an image is uploaded in chunks, then pushed to the chat after its caption', async ({ wecom, channel, home }) => {
  const path = join(home.home, 'tern.png');
  writeFileSync(path, png);
  await channel.sendFile('single:lin', { kind: 'image', path, mime: 'image/png', caption: 'A tern.' });
  assert.equal(
    wecom.pushes.filter((p) => p.chatId === 'lin').map(({ at: _at, ...push }) => push),
    [
      { chatId: 'lin', chatType: 1, content: 'A tern.' },
      { chatId: 'lin', chatType: undefined, content: '', media: { type: 'image', filename: 'tern.png', bytes: png } },
    ],
  );
});

files('a file larger than one chunk arrives whole; a recording goes as a file', async ({ wecom, channel, home }) => {
  const big = Buffer.alloc(1_300_000, 7);
  const path = join(home.home, 'notes.amr');
  writeFileSync(path, big);
  await channel.sendFile('group:wrgroup2', { kind: 'audio', path });
  const [push] = wecom.pushes.filter((p) => p.chatId === 'wrgroup2');
  assert.equal([push?.media?.type, push?.media?.filename, push?.media?.bytes.equals(big)], ['file', 'notes.amr', true]);
});

files(
  'a bare group id, as the message tool names it, answers in the group, then pushes as a group',
  async (context) => {
    const { wecom, channel } = context;
    wecom.groupAt('wrgroup3', 'hello bot');
    while (!context.heard.includes('hello bot')) await new Promise((resolve) => setTimeout(resolve, 10));
    await channel.send('wrgroup3', 'in place');
    await channel.send('wrgroup3', 'to the group');
    assert.equal(
      wecom.streams.filter((s) => s.chat === 'wrgroup3').map((s) => s.contents),
      [['in place']],
    );
    const pushed = wecom.pushes
      .filter((p) => p.chatId === 'wrgroup3')
      .map(({ chatType, content }) => [chatType, content]);
    assert.equal(pushed, [[2, 'to the group']]);
  },
);

files.run();
