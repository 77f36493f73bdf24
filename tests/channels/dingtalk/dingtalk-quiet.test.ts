// dingtalk-stream prints "connect success" and "Disconnecting." on the console whatever its `debug` says: a gateway's
// output is its log, so the channel keeps the library quiet while it opens and closes the stream.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DingTalkChannel } from '../../../adapters/channels/dingtalk/dingtalk.js';
import { DingTalkEmulator } from './dingtalk-emulator.js';

test('a DingTalk channel connects and stops without a word on the console', async () => {
  const dingtalk = await DingTalkEmulator.start();
  const printed: string[] = [];
  const saved = { info: console.info, log: console.log, warn: console.warn };
  for (const level of ['info', 'log', 'warn'] as const)
    console[level] = (...args: unknown[]) => void printed.push(`${level}: ${args.map(String).join(' ')}`);
  try {
    const channel = new DingTalkChannel({
      clientId: dingtalk.clientId,
      clientSecret: dingtalk.clientSecret,
      robotCode: dingtalk.clientId,
      apiBase: dingtalk.url,
      oapiBase: dingtalk.url,
    });
    let connected = false;
    await channel.start({
      onMessage: () => undefined,
      onConnected: () => {
        connected = true;
      },
      onFailed: () => undefined,
    });
    await channel.stop();
    Object.assign(console, saved);
    assert.equal([connected, printed], [true, []]);
  } finally {
    Object.assign(console, saved);
    await dingtalk.close();
  }
});

test.run();
