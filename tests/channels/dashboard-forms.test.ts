// The dashboard's channel forms (GET /api/config/schema's `channel_kinds`): one for every kind the gateway runs, with
// every field the channel reads (bar `reasoning_channel_id`, a field of every entry), secrets write-only.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SUPPORTED_KINDS } from '../../actors/gateway/channel-factory.js';
import { configJsonSchema } from '../../adapters/launcher/api/config-schema.js';
import { dingtalkSettingsSchema } from '../../adapters/channels/dingtalk/settings.js';
import { emailSettingsSchema } from '../../adapters/channels/email/settings.js';
import { feishuSettingsSchema } from '../../adapters/channels/feishu/settings.js';
import { ircSettingsSchema } from '../../adapters/channels/irc/settings.js';
import { mattermostSettingsSchema } from '../../adapters/channels/mattermost/settings.js';
import { onebotSettingsSchema } from '../../adapters/channels/onebot/settings.js';
import { picoClientSettingsSchema, picoServerSettingsSchema } from '../../adapters/channels/pico/settings.js';
import { qqSettingsSchema } from '../../adapters/channels/qq/settings.js';
import { signalSettingsSchema } from '../../adapters/channels/signal/settings.js';
import { wecomSettingsSchema } from '../../adapters/channels/wecom/settings.js';

type Form = { properties?: Record<string, { writeOnly?: boolean }> };
const forms = configJsonSchema().channel_kinds as Record<string, Form>;

test('every channel kind the gateway runs has a form', () => {
  assert.equal(
    SUPPORTED_KINDS.filter((kind) => !forms[kind]),
    [],
  );
});

test("each form has the fields the channel's settings schema reads, its secrets write-only", () => {
  const read = {
    feishu: feishuSettingsSchema,
    dingtalk: dingtalkSettingsSchema,
    wecom: wecomSettingsSchema,
    qq: qqSettingsSchema,
    onebot: onebotSettingsSchema,
    pico_client: picoClientSettingsSchema,
    pico: picoServerSettingsSchema,
    irc: ircSettingsSchema,
    signal: signalSettingsSchema,
    mattermost: mattermostSettingsSchema,
    email: emailSettingsSchema,
  };
  for (const [kind, schema] of Object.entries(read)) {
    const fields = Object.keys(schema.shape).filter((field) => field !== 'reasoning_channel_id');
    assert.equal(Object.keys(forms[kind]?.properties ?? {}), fields, kind);
  }
  const writeOnly = (kind: string): string[] =>
    Object.entries(forms[kind]?.properties ?? {})
      .filter(([, field]) => field.writeOnly)
      .map(([name]) => name);
  assert.equal(['feishu', 'dingtalk', 'wecom', 'qq', 'onebot', 'pico_client', 'pico'].map(writeOnly), [
    ['app_secret', 'encrypt_key', 'verification_token'],
    ['client_secret'],
    ['secret'],
    ['app_secret'],
    ['access_token'],
    ['token'],
    ['token'],
  ]);
});

test.run();
