// `tern onboard` flags and `tern doctor` checks for Feishu, DingTalk, WeCom, QQ and OneBot, against their emulators.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse as parseYaml } from 'yaml';
import { runCliAsync } from '../support/cli.js';
import { tempHome, type TempHome } from '../support/temp-home.js';
import { DingTalkEmulator } from './dingtalk/dingtalk-emulator.js';
import { FeishuEmulator } from './feishu/feishu-emulator.js';
import { OneBotEmulator } from './onebot/onebot-emulator.js';
import { QqEmulator } from './qq/qq-emulator.js';
import { WeComEmulator } from './wecom/wecom-emulator.js';

type Check = { name: string; status: string; message: string };

interface Context {
  home: TempHome;
}

const setup = suite<Context>('onboard flags and doctor checks of the Feishu, DingTalk, WeCom, QQ and OneBot channels');

setup.before.each((context) => {
  context.home = tempHome();
  mkdirSync(context.home.home, { recursive: true });
});

setup.after.each((context) => context.home.remove());

const read = (home: TempHome, file: string): string => readFileSync(join(home.home, file), 'utf8');

setup('onboard flags add each channel: ids and options in config.json, secrets in .security.yml', async ({ home }) => {
  const result = await runCliAsync(
    [
      'onboard',
      '--no-test',
      '--json',
      '--feishu-app-id',
      'cli_a1b2c3d4e5f60718',
      '--feishu-app-secret',
      'fs-secret-1',
      '--feishu-lark',
      '--dingtalk-client-id',
      'dingabc',
      '--dingtalk-client-secret',
      'dt-secret-1',
      '--wecom-bot-id',
      'aibot1',
      '--wecom-secret',
      'wc-secret-1',
      '--qq-app-id',
      '102000001',
      '--qq-app-secret',
      'qq-secret-1',
      '--onebot-url',
      'ws://127.0.0.1:3001',
      '--onebot-token',
      'ob-token-1',
    ],
    home.env,
  );
  assert.is(result.code, 0, result.stdout + result.stderr);
  const config = JSON.parse(read(home, 'config.json')) as { channel_list: unknown };
  assert.equal(config.channel_list, {
    feishu: { enabled: true, type: 'feishu', settings: { app_id: 'cli_a1b2c3d4e5f60718', is_lark: true } },
    dingtalk: { enabled: true, type: 'dingtalk', settings: { client_id: 'dingabc' } },
    wecom: { enabled: true, type: 'wecom', settings: { bot_id: 'aibot1' } },
    qq: { enabled: true, type: 'qq', settings: { app_id: '102000001' } },
    onebot: { enabled: true, type: 'onebot', settings: { ws_url: 'ws://127.0.0.1:3001' } },
  });
  assert.equal(parseYaml(read(home, '.security.yml')).channel_list, {
    feishu: { app_secret: 'fs-secret-1' },
    dingtalk: { client_secret: 'dt-secret-1' },
    wecom: { secret: 'wc-secret-1' },
    qq: { app_secret: 'qq-secret-1' },
    onebot: { access_token: 'ob-token-1' },
  });
  assert.not.ok(read(home, 'config.json').includes('secret-1'), 'no secret in config.json');
});

setup('an id without its secret is a usage error, and nothing is written', async ({ home }) => {
  const cases: Array<[string[], string]> = [
    [['--feishu-app-id', 'cli_a1b2c3d4e5f60718'], 'Feishu needs both --feishu-app-id and --feishu-app-secret'],
    [['--dingtalk-client-secret', 'x'], 'DingTalk needs both --dingtalk-client-id and --dingtalk-client-secret'],
    [['--wecom-bot-id', 'x'], 'WeCom needs both --wecom-bot-id and --wecom-secret'],
    [['--qq-app-secret', 'x'], 'QQ needs both --qq-app-id and --qq-app-secret'],
    [['--onebot-token', 'x'], '--onebot-token needs --onebot-url'],
  ];
  for (const [flags, message] of cases) {
    const result = await runCliAsync(['onboard', '--no-test', ...flags], home.env);
    assert.is(result.code, 2, `${flags.join(' ')}: ${result.stderr}`);
    assert.ok(result.stderr.includes(message), result.stderr);
  }
});

setup(
  'doctor makes one authenticated call per channel: accepted credentials are ok, refused ones an error',
  async ({ home }) => {
    const [feishu, dingtalk, qq, onebot, wecom] = await Promise.all([
      FeishuEmulator.start(),
      DingTalkEmulator.start(),
      QqEmulator.start(),
      OneBotEmulator.start(),
      WeComEmulator.start(),
    ]);
    try {
      const entry = (type: string, settings: Record<string, unknown>) => ({ enabled: true, type, settings });
      writeFileSync(
        join(home.home, 'config.json'),
        JSON.stringify({
          version: 2,
          channel_list: {
            feishu: entry('feishu', { app_id: feishu.appId, app_secret: feishu.appSecret, base_url: feishu.url }),
            feishu_bad: entry('feishu', { app_id: feishu.appId, app_secret: 'wrong', base_url: feishu.url }),
            dingtalk: entry('dingtalk', {
              client_id: dingtalk.clientId,
              client_secret: dingtalk.clientSecret,
              base_url: dingtalk.url,
            }),
            dingtalk_bad: entry('dingtalk', {
              client_id: dingtalk.clientId,
              client_secret: 'wrong',
              base_url: dingtalk.url,
            }),
            qq: entry('qq', { app_id: qq.appId, app_secret: qq.appSecret, base_url: qq.url }),
            qq_bad: entry('qq', { app_id: qq.appId, app_secret: 'wrong', base_url: qq.url }),
            onebot: entry('onebot', { ws_url: onebot.url, access_token: onebot.accessToken }),
            onebot_bad: entry('onebot', { ws_url: onebot.url, access_token: 'wrong' }),
            wecom: entry('wecom', { bot_id: wecom.botId, secret: wecom.secret, websocket_url: wecom.url }),
          },
        }),
        { mode: 0o600 },
      );
      const result = await runCliAsync(['doctor', '--json'], home.env);
      const checks = new Map((JSON.parse(result.stdout) as { checks: Check[] }).checks.map((c) => [c.name, c]));
      const got = (name: string): [string, string] => [
        checks.get(`channel ${name}`)?.status ?? '',
        checks.get(`channel ${name}`)?.message ?? '',
      ];
      assert.equal(got('feishu'), ['ok', 'reachable as Tern']);
      assert.equal(got('feishu_bad'), ['error', 'the App ID and Secret were refused (10014 app secret invalid)']);
      assert.equal(got('dingtalk'), ['ok', `the Client ID and Secret are accepted (app ${dingtalk.clientId})`]);
      assert.equal(got('dingtalk_bad')[0], 'error');
      assert.match(got('dingtalk_bad')[1], /^DingTalk access token: invalidClientIdOrSecret/);
      assert.equal(got('qq'), ['ok', 'reachable as tern-bot']);
      assert.equal(got('qq_bad')[0], 'error');
      assert.match(got('qq_bad')[1], /^QQ refused the AppID and AppSecret/);
      assert.equal(got('onebot'), ['ok', 'connected and logged in (get_login_info answered)']);
      assert.equal(got('onebot_bad')[0], 'error');
      assert.equal(got('wecom'), ['skipped', "a wecom bot has one connection: a probe would take the gateway's"]);
      assert.is(wecom.connections(), 0, 'no connection taken from the gateway');
      assert.not.ok(
        result.stdout.includes(feishu.appSecret) || result.stdout.includes(qq.appSecret),
        'no secret shown',
      );
    } finally {
      await Promise.all([feishu.close(), dingtalk.close(), qq.close(), onebot.close(), wecom.close()]);
    }
  },
);

setup.run();
