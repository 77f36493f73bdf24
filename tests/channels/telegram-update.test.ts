import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fromTelegramUpdate, telegramUpdateSchema } from '../../adapters/channels/telegram-update.js';

const bot = { id: 666, username: 'TestNameBot' };
const from = { id: 1001, is_bot: false, username: 'alice' };

const parse = (update: unknown) => fromTelegramUpdate(telegramUpdateSchema.parse(update), bot);

test('a private message maps to direct:<chat> with sender aliases', () => {
  assert.equal(
    parse({ update_id: 1, message: { message_id: 7, chat: { id: 1001, type: 'private' }, from, text: 'hello' } }),
    {
      messageId: '1001:7',
      chat: 'direct:1001',
      replyTo: '1001',
      sender: '1001',
      senderAliases: ['1001', '@alice'],
      text: 'hello',
      mentioned: false,
    },
  );
});

test('a forum topic message carries topic:<thread>; a group mention is stripped and marks mentioned', () => {
  const message = parse({
    update_id: 2,
    message: {
      message_id: 8,
      chat: { id: -100, type: 'supergroup' },
      from,
      text: '@TestNameBot status?',
      message_thread_id: 5,
      is_topic_message: true,
    },
  });
  assert.is(message?.chat, 'group:-100');
  assert.is(message?.topic, 'topic:5');
  assert.is(message?.text, 'status?');
  assert.is(message?.mentioned, true);
});

test('/cmd@botname reads as /cmd; a reply to the bot counts as a mention', () => {
  assert.is(
    parse({
      update_id: 3,
      message: { message_id: 9, chat: { id: -1, type: 'group' }, from, text: '/help@TestNameBot' },
    })?.text,
    '/help',
  );
  assert.is(
    parse({
      update_id: 4,
      message: {
        message_id: 10,
        chat: { id: -1, type: 'group' },
        from,
        text: 'yes',
        reply_to_message: { from: { id: 666, is_bot: true } },
      },
    })?.mentioned,
    true,
  );
});

test("an inline keyboard press is the message its button stands for, from the presser, in the button's chat", () => {
  const press = {
    update_id: 9,
    callback_query: {
      id: '55',
      from,
      data: '/approve 3f2a',
      message: { message_id: 12, chat: { id: -100, type: 'supergroup' } },
    },
  };
  assert.equal(parse(press), {
    messageId: '-100:press:55',
    chat: 'group:-100',
    replyTo: '-100',
    sender: '1001',
    senderAliases: ['1001', '@alice'],
    text: '/approve 3f2a',
    mentioned: true,
  });
  assert.is(
    parse({ update_id: 10, callback_query: { id: '56', from, message: { chat: { id: 1, type: 'private' } } } }),
    undefined,
  );
});

test('a voice message without a caption maps to empty text with its audio file', () => {
  const message = parse({
    update_id: 8,
    message: { message_id: 13, chat: { id: 1001, type: 'private' }, from, voice: { file_id: 'f1', duration: 3 } },
  });
  assert.is(message?.text, '');
  assert.equal(message?.audio, [{ fileId: 'f1', mime: 'audio/ogg', name: 'voice.ogg' }]);
});

test('updates without text, and messages from bots, are not for the agent', () => {
  assert.is(parse({ update_id: 5, message: { message_id: 11, chat: { id: 1, type: 'private' }, from } }), undefined);
  assert.is(
    parse({
      update_id: 6,
      message: { message_id: 12, chat: { id: 1, type: 'private' }, from: { id: 9, is_bot: true }, text: 'x' },
    }),
    undefined,
  );
  assert.is(parse({ update_id: 7, edited_message: {} }), undefined);
});

test('a malformed update is rejected by the schema, not thrown at the gateway', () => {
  assert.is(telegramUpdateSchema.safeParse({ update_id: 'x' }).success, false);
});

test.run();
