// Proxies as users set them: a https model reached through a CONNECT tunnel (chosen by the environment or by the
// model entry), Telegram through the Bot API emulator with and without a proxy, and `tern status` showing which
// proxy each model and channel uses.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChannelHooks, ChannelMessage } from '../../adapters/channels/channel.js';
import { TelegramChannel } from '../../adapters/channels/telegram.js';
import { runCliAsync } from '../support/cli.js';
import { startLoopbackProxy, type LoopbackProxy } from '../support/loopback-proxy.js';
import { startTlsServer, writeTrustedCert, type TlsServer } from '../support/loopback-tls.js';
import { tempHome, type TempHome } from '../support/temp-home.js';
import { TelegramEmulator } from '../support/telegram-emulator.js';

const tern = runCliAsync;

const test = suite<{ home: TempHome; proxy: LoopbackProxy; model: TlsServer }>('through a proxy');
test.before.each(async (ctx) => {
  ctx.home = tempHome();
  for (const name of ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'no_proxy', 'NO_PROXY'])
    delete ctx.home.env[name];
  mkdirSync(ctx.home.home, { recursive: true });
  ctx.proxy = await startLoopbackProxy();
  ctx.model = await startTlsServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          choices: [
            { index: 0, message: { role: 'assistant', content: `over https: ${req.url}` }, finish_reason: 'stop' },
          ],
        }),
      );
    });
  });
});
test.after.each(async (ctx) => {
  await ctx.proxy.close();
  await ctx.model.close();
  ctx.home.remove();
});

function writeConfig(home: TempHome, config: Record<string, unknown>): void {
  writeFileSync(
    join(home.home, 'config.json'),
    JSON.stringify({ version: 2, agents: { defaults: { model: 'fast' } }, ...config }),
  );
}

const httpsModel = (model: TlsServer, extra: Record<string, unknown> = {}) => ({
  model_name: 'fast',
  provider: 'openai',
  model: 'gpt-test',
  api_base: `${model.url}/v1`,
  api_keys: ['sk-test-key-0001'],
  ...extra,
});

test("a https model is reached through the model entry's proxy with CONNECT", async ({ home, proxy, model }) => {
  writeConfig(home, { model_list: [httpsModel(model, { proxy: proxy.url })] });
  const env = { ...home.env, NODE_EXTRA_CA_CERTS: writeTrustedCert(home.home) };
  const result = await tern(['agent', '-m', 'hi'], env);
  assert.equal(result, { code: 0, stdout: 'over https: /v1/chat/completions\n', stderr: '' });
  assert.equal(proxy.seen, [`CONNECT ${new URL(model.url).host}`]);
});

test(
  'a https model is reached through HTTPS_PROXY from the environment with CONNECT, ' + 'and NO_PROXY bypasses it',
  async ({ home, proxy, model }) => {
    writeConfig(home, { model_list: [httpsModel(model)] });
    const env = { ...home.env, NODE_EXTRA_CA_CERTS: writeTrustedCert(home.home), HTTPS_PROXY: proxy.url };
    assert.equal(await tern(['agent', '-m', 'hi'], env), {
      code: 0,
      stdout: 'over https: /v1/chat/completions\n',
      stderr: '',
    });
    assert.equal(proxy.seen, [`CONNECT ${new URL(model.url).host}`]);
    assert.equal(await tern(['agent', '-m', 'again'], { ...env, NO_PROXY: '127.0.0.1' }), {
      code: 0,
      stdout: 'over https: /v1/chat/completions\n',
      stderr: '',
    });
    assert.is(proxy.seen.length, 1);
  },
);

test('a proxy URL that is not one is a config error naming the field', async ({ home, model }) => {
  writeConfig(home, { model_list: [httpsModel(model, { proxy: 'proxy.local:3128' })] });
  const result = await tern(['config', 'validate'], home.env);
  assert.is(result.code, 1);
  assert.match(
    result.stdout + result.stderr,
    new RegExp(
      /model_list\[0\]\.proxy: is not a proxy URL \(allowed: /.source +
        /http:\/\/\[user:password@\]host:port, https:\/\/…, socks5:\/\/…, or ""\)/.source,
    ),
  );
});

test('tern status shows the proxy of each model and channel, with the password masked', async ({ home }) => {
  writeConfig(home, {
    agents: { defaults: { model: 'cloud' } },
    model_list: [
      { model_name: 'cloud', provider: 'openai', model: 'gpt-5', api_keys: ['sk-test-key-0001'] },
      { model_name: 'local', provider: 'ollama', model: 'llama3', api_base: 'http://localhost:11434/v1' },
      {
        model_name: 'own',
        provider: 'openai',
        model: 'gpt-5',
        api_keys: ['sk-test-key-0002'],
        proxy: 'http://me:hunter22@proxy.local:3128',
      },
    ],
    channel_list: {
      tg: {
        enabled: true,
        type: 'telegram',
        settings: { token: '1:aaaa', proxy: 'socks5://bot:s3cret@10.0.0.9:1080' },
      },
      tg2: { enabled: true, type: 'telegram', settings: { token: '2:bbbb' } },
      dc: { enabled: false, type: 'discord', settings: { token: 'dddd' } },
    },
  });
  const env = { ...home.env, HTTPS_PROXY: 'http://corp:Pa55word@corp-proxy:8080', NO_PROXY: 'localhost' };
  const result = await tern(['status', '--json'], env);
  assert.is(result.code, 0, result.stderr);
  const status = JSON.parse(result.stdout) as {
    models: Array<{ model_name: string; proxy: string | null; proxy_from: string | null }>;
    channels: Array<{ name: string; proxy: string | null; proxy_from: string | null }>;
  };
  assert.equal(
    status.models.map((m) => [m.model_name, m.proxy, m.proxy_from]),
    [
      ['cloud', 'http://corp:****@corp-proxy:8080', 'environment'],
      ['local', null, null],
      ['own', 'http://me:****@proxy.local:3128', 'config'],
    ],
  );
  assert.equal(
    status.channels.map((c) => [c.name, c.proxy, c.proxy_from]),
    [
      ['tg', 'socks5://bot:****@10.0.0.9:1080', 'config'],
      ['tg2', 'http://corp:****@corp-proxy:8080', 'environment'],
      ['dc', null, 'library'],
    ],
  );
  const text = await tern(['status'], env);
  assert.ok(
    text.stdout.includes(
      '  own  provider openai (chat-completions)  model gpt-5  base https://api.openai.com/v1  ' +
        '1 key (sk-t…02)  proxy: http://me:****@proxy.local:3128  enabled',
    ),
    text.stdout,
  );
  assert.ok(
    text.stdout.includes('  tg2  telegram  proxy: http://corp:****@corp-proxy:8080 (from the environment)  enabled'),
    text.stdout,
  );
  assert.not.ok(/hunter22|Pa55word|s3cret/.test(text.stdout + result.stdout));
});

const telegram = suite<{ emulator: TelegramEmulator; proxy: LoopbackProxy }>('telegram through a proxy');
telegram.before(async (ctx) => {
  ctx.emulator = await TelegramEmulator.start();
  ctx.proxy = await startLoopbackProxy();
});
telegram.after(async (ctx) => {
  await ctx.emulator.stop();
  await ctx.proxy.close();
});
telegram.before.each((ctx) => {
  ctx.proxy.seen.length = 0;
});
telegram.after.each(() => {
  delete process.env.HTTP_PROXY;
});

/** Starts a channel, has a user say `text`, answers it, and stops the channel. */
async function roundTrip(
  emulator: TelegramEmulator,
  channel: TelegramChannel,
  token: string,
  text: string,
): Promise<string[]> {
  let received!: (message: ChannelMessage) => void;
  const message = new Promise<ChannelMessage>((resolve) => {
    received = resolve;
  });
  const hooks: ChannelHooks = {
    onMessage: (m) => received(m),
    onConnected() {},
    onFailed: (error) => {
      throw error;
    },
  };
  await channel.start(hooks);
  try {
    await emulator.say(token, text, { userId: 7001 });
    const got = await message;
    await channel.send(got.replyTo, `answer to ${got.text}`);
    return (await emulator.waitForBotMessages(token, 7001, 1)).map((m) => m.text);
  } finally {
    await channel.stop();
  }
}

const lines = (seen: string[], token: string) => [
  ...new Set(
    seen.map((line) =>
      line.replace(`/bot${token}/`, '/bot<token>/').replace(/http:\/\/127\.0\.0\.1:\d+/, '<emulator>'),
    ),
  ),
];

telegram('a Telegram channel with settings.proxy makes every Bot API call through it', async ({ emulator, proxy }) => {
  const token = '720001:proxied-token-AAAA';
  const channel = new TelegramChannel({ token, baseUrl: emulator.url, pollTimeoutSeconds: 1, proxy: proxy.url });
  assert.equal(await roundTrip(emulator, channel, token, 'hello'), ['answer to hello']);
  assert.equal(lines(proxy.seen, token), [
    'POST <emulator>/bot<token>/getMe',
    'POST <emulator>/bot<token>/getUpdates',
    'POST <emulator>/bot<token>/sendMessage',
  ]);
});

telegram(
  'a Telegram channel without a proxy setting follows HTTP_PROXY, and goes direct without one',
  async ({ emulator, proxy }) => {
    const token = '720002:env-token-AAAA';
    process.env.HTTP_PROXY = proxy.url;
    assert.equal(
      await roundTrip(
        emulator,
        new TelegramChannel({ token, baseUrl: emulator.url, pollTimeoutSeconds: 1 }),
        token,
        'via env',
      ),
      ['answer to via env'],
    );
    assert.ok(lines(proxy.seen, token).includes('POST <emulator>/bot<token>/sendMessage'));
    delete process.env.HTTP_PROXY;
    proxy.seen.length = 0;
    const direct = '720003:direct-token-AAAA';
    assert.equal(
      await roundTrip(
        emulator,
        new TelegramChannel({ token: direct, baseUrl: emulator.url, pollTimeoutSeconds: 1 }),
        direct,
        'direct',
      ),
      ['answer to direct'],
    );
    assert.equal(proxy.seen, []);
  },
);

test.run();
telegram.run();
