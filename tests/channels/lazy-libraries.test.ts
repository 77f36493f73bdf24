// A channel's library loads only when a channel of its kind is configured: a gateway with no channel (or with other
// kinds) loads none of them, which keeps its start fast and its memory small (bench: gateway.idle_rss_mb).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGatewayModel } from '../support/gateway-model.js';
import { modelEntry, startGatewayProcess } from '../support/gateway-process.js';
import { LineApi } from '../support/line-api.js';
import { freePort } from '../support/telegram-emulator.js';
import { DingTalkContractEmulator } from './dingtalk/dingtalk-contract-emulator.js';
import { EmailContractEmulator } from './email/email-contract-emulator.js';
import { IrcContractEmulator } from './irc/irc-contract-emulator.js';

/** The npm packages that only channels use. */
const CHANNEL_LIBRARIES = [
  '@larksuiteoapi/node-sdk',
  '@line/bot-sdk',
  '@mattermost/client',
  '@slack/bolt',
  '@wecom/aibot-node-sdk',
  '@whiskeysockets/baileys',
  'dingtalk-stream',
  '@discordjs/rest',
  '@discordjs/ws',
  'imapflow',
  'irc-framework',
  'mailparser',
  'matrix-js-sdk',
  'nodemailer',
];

/** The files from node_modules a gateway with these channels loaded as modules by the time it was ready. */
async function filesLoaded(channels: Record<string, unknown>): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-loads-'));
  const list = join(dir, 'loaded.txt');
  writeFileSync(list, '');
  const hook = [
    "import { appendFileSync } from 'node:fs';",
    `export async function load(url, context, next) { appendFileSync(${JSON.stringify(list)}, url + '\\n');`,
    '  return next(url, context); }',
  ].join('\n');
  const register = join(dir, 'record.mjs');
  const source = `register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));`;
  writeFileSync(register, `import { register } from 'node:module';\n${source}\n`);
  const model = await startGatewayModel();
  const gateway = await startGatewayProcess(
    {
      gateway: { host: '127.0.0.1', port: await freePort() },
      agents: { defaults: { model: 'fast' } },
      model_list: [modelEntry(model.url)],
      heartbeat: { enabled: false },
      channel_list: channels,
    },
    { NODE_OPTIONS: `--import=${register}` },
  );
  try {
    await gateway.waitUntil((body) => body.channels.every((c) => c.state === 'connected'), 60_000);
    return readFileSync(list, 'utf8')
      .split('\n')
      .filter((url) => url.startsWith('file://') && url.includes('/node_modules/'))
      .map((url) => fileURLToPath(url).split('/node_modules/').at(-1)!);
  } finally {
    await gateway.stop();
    gateway.home.remove();
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The packages (from node_modules) a gateway with these channels loaded by the time it was ready. */
async function packagesLoaded(channels: Record<string, unknown>): Promise<string[]> {
  const packages = (await filesLoaded(channels)).map((file) => {
    const [scope = '', name = ''] = file.split('/');
    return scope.startsWith('@') ? `${scope}/${name}` : scope;
  });
  return [...new Set(packages)].sort();
}

test('a gateway without channels loads no channel library; one with IRC loads irc-framework only', async () => {
  const plain = await packagesLoaded({});
  assert.equal(
    plain.filter((name) => CHANNEL_LIBRARIES.includes(name)),
    [],
  );
  const irc = await IrcContractEmulator.start();
  try {
    const entry = { enabled: true, type: 'irc', settings: { ...irc.settings(), allow_from: ['*'] } };
    const withIrc = await packagesLoaded({ irc: entry });
    assert.equal(
      withIrc.filter((name) => CHANNEL_LIBRARIES.includes(name)),
      ['irc-framework'],
    );
  } finally {
    await irc.close();
  }
});

test('an idle Email channel loads imapflow only: mailparser waits for a mail in, nodemailer for one out', async () => {
  const email = await EmailContractEmulator.start();
  try {
    const entry = { enabled: true, type: 'email', settings: { ...email.settings(), allow_from: ['*'] } };
    const withEmail = await packagesLoaded({ email: entry });
    assert.equal(
      withEmail.filter((name) => CHANNEL_LIBRARIES.includes(name)),
      ['imapflow'],
    );
  } finally {
    await email.close();
  }
});

test(
  'a LINE channel loads no axios: ' + "the Messaging API client of its SDK is bundled without the SDK's axios",
  async () => {
    const line = await LineApi.start();
    try {
      const entry = { enabled: true, type: 'line', settings: { ...line.settings(), allow_from: ['*'] } };
      const withLine = await packagesLoaded({ line: entry });
      // The SDK's ES module index imports its legacy axios client; a gateway loading it gets a second axios beside the
      // CommonJS one other channel libraries share.
      assert.equal(
        withLine.filter((name) => name === 'axios' || CHANNEL_LIBRARIES.includes(name)),
        [],
      );
    } finally {
      await line.close();
    }
  },
);

test('a DingTalk channel takes the CommonJS axios that Slack, WeCom and Feishu share, not a second one', async () => {
  const dingtalk = await DingTalkContractEmulator.start();
  try {
    const entry = { enabled: true, type: 'dingtalk', settings: { ...dingtalk.settings(), allow_from: ['*'] } };
    const axios = (await filesLoaded({ dingtalk: entry })).filter((file) => file.startsWith('axios/'));
    assert.equal([...new Set(axios)], ['axios/dist/node/axios.cjs']);
  } finally {
    await dingtalk.close();
  }
});

test.run();
