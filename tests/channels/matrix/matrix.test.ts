// The Matrix channel against the loopback homeserver: invites, encrypted rooms, a refused token and its settings.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as z from 'zod/mini';
import { ChannelError, type ChannelMessage } from '../../../adapters/channels/channel.js';
import { matrixFromEntry } from '../../../adapters/channels/matrix/from-entry.js';
import { ENCRYPTED_REFUSAL, MatrixChannel } from '../../../adapters/channels/matrix/matrix.js';
import { channelEntrySchema } from '../../../store/config/schema/channel-list.js';
import { channelKindSettings } from '../../../store/config/schema/channel-kinds.js';
import { BOT_USER, MatrixHomeserver } from '../../support/matrix-homeserver.js';

async function until<T>(what: string, check: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function started(
  hs: MatrixHomeserver,
  joinOnInvite = true,
): Promise<{ channel: MatrixChannel; inbound: ChannelMessage[] }> {
  const inbound: ChannelMessage[] = [];
  const channel = new MatrixChannel({
    homeserver: hs.url,
    userId: BOT_USER,
    accessToken: hs.accessToken,
    joinOnInvite,
    messageFormat: 'markdown',
  });
  await new Promise<void>((resolve, reject) => {
    channel.start({ onMessage: (m) => void inbound.push(m), onConnected: resolve, onFailed: reject }).catch(reject);
  });
  return { channel, inbound };
}

test('join_on_invite: the bot joins a room it is invited to and takes its messages as a direct chat', async () => {
  const hs = await MatrixHomeserver.start();
  const { channel, inbound } = await started(hs);
  try {
    const { room, conversation } = hs.invite('carol');
    await until('the join', () => hs.isJoined(room));
    const said = await conversation.say('hi bot');
    const message = await until('the message', () => inbound.find((m) => m.messageId === said.id));
    assert.equal(
      { chat: message.chat, replyTo: message.replyTo, sender: message.sender, text: message.text },
      { chat: `direct:${room}`, replyTo: room, sender: '@carol:loopback.test', text: 'hi bot' },
    );
  } finally {
    await channel.stop();
    await hs.close();
  }
});

test('an idle channel waits in one /sync long poll rather than asking again at once', async () => {
  const hs = await MatrixHomeserver.start();
  const { channel } = await started(hs);
  try {
    // Before any event the homeserver's token is the first it hands out; a sync with it still waits for news.
    await until('a held sync', () => hs.heldSyncs === 1);
    assert.equal(hs.calls.filter((call) => call.endsWith('/sync')).length, 2);
  } finally {
    await channel.stop();
    await hs.close();
  }
});

test('without join_on_invite an invite is left alone', async () => {
  const hs = await MatrixHomeserver.start();
  const { channel } = await started(hs, false);
  try {
    const { room } = hs.invite('dave');
    const probe = hs.direct('erin');
    await probe.say('a later message');
    // The sync that carries the later message carried the invite too.
    await until('a sync after the invite', () => hs.calls.filter((c) => c.endsWith('/sync')).length >= 3);
    assert.is(hs.isJoined(room), false);
  } finally {
    await channel.stop();
    await hs.close();
  }
});

test('an encrypted room the bot is invited to is told why, once, and left; its messages get no turn', async () => {
  const hs = await MatrixHomeserver.start();
  const { channel, inbound } = await started(hs);
  try {
    const { room } = hs.invite('frank', true);
    await until('the refusal', () => hs.sentTo(room).length === 1);
    assert.equal(
      hs.sentTo(room).map((m) => m.text),
      [ENCRYPTED_REFUSAL],
    );
    await until('the leave', () => hs.calls.includes(`POST /_matrix/client/v3/rooms/${room}/leave`));
    const joined = hs.direct('grace', { encrypted: true });
    await joined.say('secret words');
    await joined.say('more secret words');
    // Two more long polls after both messages: the bot has handled the batch that brought them, and the next one.
    const syncs = (): number => hs.calls.filter((call) => call.startsWith('GET /_matrix/client/v3/sync')).length;
    const polled = syncs();
    await until('the notice', () => joined.sent().length === 1);
    await until('two more long polls', () => syncs() >= polled + 2);
    assert.equal(
      joined.sent().map((m) => m.text),
      [ENCRYPTED_REFUSAL],
    );
    assert.equal(inbound, []);
  } finally {
    await channel.stop();
    await hs.close();
  }
});

test('a refused access token fails the start as unauthorized, without the token in the message', async () => {
  const hs = await MatrixHomeserver.start();
  const channel = new MatrixChannel({
    homeserver: hs.url,
    userId: BOT_USER,
    accessToken: 'syt_wrong_token_123',
    joinOnInvite: true,
    messageFormat: 'markdown',
  });
  try {
    const error = await channel
      .start({ onMessage: () => undefined, onConnected: () => undefined, onFailed: () => undefined })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.instance(error, ChannelError);
    assert.is((error as ChannelError).code, 'unauthorized');
    assert.is((error as ChannelError).message, 'Matrix whoami: M_UNKNOWN_TOKEN Invalid access token passed.');
  } finally {
    await channel.stop();
    await hs.close();
  }
});

test('bad settings name the field and the allowed values', () => {
  const entry = (settings: Record<string, unknown>) =>
    channelEntrySchema.parse({ enabled: true, type: 'matrix', settings });
  const refused = (settings: Record<string, unknown>): string => {
    try {
      matrixFromEntry('mx', { ...entry(settings), type: 'matrix' });
      return 'accepted';
    } catch (error) {
      return (error as Error).message;
    }
  };
  const good = { homeserver: 'https://matrix.org', user_id: '@bot:matrix.org', access_token: 'syt_x' };
  assert.is(
    refused({ ...good, homeserver: 'matrix.org' }),
    "channel_list.mx.settings.homeserver must be the homeserver's URL (allowed: http:// or https:// URL)",
  );
  assert.is(
    refused({ ...good, user_id: 'bot' }),
    'channel_list.mx.settings.user_id must be a full user id (allowed: @name:server)',
  );
  assert.is(
    refused({ ...good, access_token: '' }),
    'channel_list.mx.settings.access_token is missing (set it in config.json or .security.yml)',
  );
  assert.is(
    refused({ ...good, message_format: 'html' }),
    'channel_list.mx.settings.message_format "html" is not allowed (allowed: markdown, plain)',
  );
  assert.is(refused(good), 'accepted');
});

test('every Matrix setting is described for the dashboard, and the passphrase is masked as a secret', () => {
  const shape = channelKindSettings.matrix.def.shape;
  assert.equal(Object.keys(shape), [
    'homeserver',
    'user_id',
    'access_token',
    'device_id',
    'join_on_invite',
    'message_format',
    'crypto_database_path',
    'crypto_passphrase',
  ]);
  for (const field of Object.values(shape)) assert.ok(z.globalRegistry.get(field as z.core.$ZodType)?.description);
  const parsed = channelEntrySchema.parse({ type: 'matrix', settings: { crypto_passphrase: 'hunter2' } });
  assert.not.ok(JSON.stringify(parsed).includes('hunter2'));
});

test.run();
