// `tern onboard` flags for LINE and for WhatsApp in each of its three modes: settings in config.json, secrets in
// .security.yml, and a usage error (exit 2) naming what is missing or what clashes.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse as parseYaml } from 'yaml';
import { runCliAsync } from '../../support/cli.js';
import { tempHome, type TempHome } from '../../support/temp-home.js';

async function onboard(home: TempHome, flags: string[]) {
  const result = await runCliAsync(['onboard', '--no-test', '--json', ...flags], home.env);
  const read = (file: string): string => readFileSync(join(home.home, file), 'utf8');
  if (result.code !== 0) return { code: result.code, said: result.stdout + result.stderr };
  return {
    code: result.code,
    channels: (JSON.parse(read('config.json')) as { channel_list: unknown }).channel_list,
    secrets: (parseYaml(read('.security.yml')) as { channel_list?: unknown } | null)?.channel_list,
  };
}

function withHome(run: (home: TempHome) => Promise<void>): () => Promise<void> {
  return async () => {
    const home = tempHome();
    mkdirSync(home.home, { recursive: true });
    try {
      await run(home);
    } finally {
      home.remove();
    }
  };
}

test(
  'onboard flags add a LINE channel and a WhatsApp Cloud API channel, their secrets in .security.yml',
  withHome(async (home) => {
    const got = await onboard(home, [
      ...['--line-channel-secret', 'line-secret-1', '--line-channel-access-token', 'line-token-1'],
      ...['--whatsapp-phone-number-id', '105000000000001', '--whatsapp-access-token', 'EAAG1'],
      ...['--whatsapp-app-secret', 'app-secret-1', '--whatsapp-verify-token', 'verify-1'],
    ]);
    assert.equal(got, {
      code: 0,
      channels: {
        line: { enabled: true, type: 'line' },
        whatsapp: { enabled: true, type: 'whatsapp', settings: { phone_number_id: '105000000000001' } },
      },
      secrets: {
        line: { channel_secret: 'line-secret-1', channel_access_token: 'line-token-1' },
        whatsapp: { access_token: 'EAAG1', app_secret: 'app-secret-1', verify_token: 'verify-1' },
      },
    });
  }),
);

test(
  'onboard --whatsapp-native links a device; --whatsapp-bridge-url names a bridge',
  withHome(async (home) => {
    const native = await onboard(home, ['--whatsapp-native']);
    assert.equal(native.channels, { whatsapp: { enabled: true, type: 'whatsapp', settings: { use_native: true } } });
    home.remove();
    mkdirSync(home.home, { recursive: true });
    const bridge = await onboard(home, ['--whatsapp-bridge-url', 'ws://localhost:3001']);
    assert.equal(bridge.channels, {
      whatsapp: { enabled: true, type: 'whatsapp', settings: { bridge_url: 'ws://localhost:3001' } },
    });
  }),
);

test(
  'a flag without its partners, or two WhatsApp modes at once, is a usage error that says so',
  withHome(async (home) => {
    const cases: Array<[string[], string]> = [
      [['--line-channel-secret', 's'], 'LINE needs both --line-channel-secret and --line-channel-access-token'],
      [
        ['--whatsapp-phone-number-id', '1', '--whatsapp-access-token', 't'],
        "WhatsApp's Cloud API needs --whatsapp-phone-number-id, --whatsapp-access-token, --whatsapp-app-secret, " +
          '--whatsapp-verify-token',
      ],
      [
        ['--whatsapp-native', '--whatsapp-bridge-url', 'ws://localhost:3001'],
        'WhatsApp takes one way: the Cloud API flags, --whatsapp-native or --whatsapp-bridge-url, not several',
      ],
    ];
    for (const [flags, message] of cases) {
      const got = await onboard(home, flags);
      assert.equal([got.code, got.said?.includes(message)], [2, true], got.said);
    }
  }),
);

test('tern onboard --help names the LINE, WhatsApp and Email flags', async () => {
  const home = tempHome();
  try {
    const { stdout } = await runCliAsync(['onboard', '--help'], home.env);
    for (const line of [
      'onboard --email-address ADDRESS --email-password P --email-imap HOST[:PORT] --email-smtp HOST[:PORT]',
      'onboard --line-channel-secret S --line-channel-access-token T',
      'onboard --whatsapp-phone-number-id ID --whatsapp-access-token T --whatsapp-app-secret S ' +
        '--whatsapp-verify-token T',
      'onboard --whatsapp-native | --whatsapp-bridge-url URL',
    ])
      assert.ok(stdout.includes(line), `usage line: ${line}\n${stdout}`);
  } finally {
    home.remove();
  }
});

test.run();
