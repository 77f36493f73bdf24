import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  discordChoiceRow,
  DISCORD_MAX_LENGTH,
  fromDiscordButton,
  fromDiscordMessage,
  type DiscordMessageFacts,
} from '../../adapters/channels/discord-message.js';
import {
  fromSlackButton,
  fromSlackMessage,
  SLACK_MAX_LENGTH,
  slackButtonSchema,
  slackChoiceBlocks,
  slackMessageSchema,
  slackTarget,
} from '../../adapters/channels/slack-message.js';
import { splitMessage } from '../../adapters/channels/split.js';

const BOT = '900';
const discord = (facts: Partial<DiscordMessageFacts>): DiscordMessageFacts => ({
  id: 'm1',
  channelId: 'c1',
  guildId: 'g1',
  threadParentId: null,
  content: 'hi',
  authorId: 'u1',
  authorName: 'alice',
  authorIsBot: false,
  repliesToBot: false,
  ...facts,
});

const discordCases: Array<[string, Partial<DiscordMessageFacts>, Record<string, unknown> | undefined]> = [
  [
    'a DM is direct:<channel> with no space',
    { guildId: null, channelId: 'dm7' },
    { chat: 'direct:dm7', replyTo: 'dm7', text: 'hi', mentioned: false },
  ],
  [
    'a guild channel message is channel:<id> in guild:<id>',
    {},
    { chat: 'channel:c1', space: 'guild:g1', text: 'hi', mentioned: false },
  ],
  [
    'a mention <@bot> or <@!bot> is stripped and marks mentioned',
    { content: '<@!900> what now <@900>' },
    { chat: 'channel:c1', space: 'guild:g1', text: 'what now', mentioned: true },
  ],
  [
    'a thread is topic:<thread> of its parent channel; replies go to the thread',
    { channelId: 't5', threadParentId: 'c1' },
    { chat: 'channel:c1', space: 'guild:g1', topic: 'topic:t5', replyTo: 't5', text: 'hi', mentioned: false },
  ],
  [
    'a reply to the bot counts as a mention',
    { repliesToBot: true },
    { chat: 'channel:c1', space: 'guild:g1', text: 'hi', mentioned: true },
  ],
  ['messages from bots are ignored', { authorIsBot: true }, undefined],
  ['a bare mention with no text is ignored', { content: '<@900>' }, undefined],
];

for (const [name, facts, expected] of discordCases) {
  test(`discord: ${name}`, () => {
    const message = fromDiscordMessage(discord(facts), BOT);
    if (!expected) return assert.is(message, undefined);
    for (const [key, value] of Object.entries(expected))
      assert.equal(message?.[key as keyof typeof message], value, key);
    assert.equal(message?.senderAliases, ['u1', '@alice']);
  });
}

const slackCases: Array<[string, Record<string, unknown>, Record<string, unknown> | undefined]> = [
  [
    'an IM is direct:<channel>',
    { channel: 'D1', channel_type: 'im' },
    { chat: 'direct:D1', replyTo: 'D1', messageId: 'D1:1700000000.000100' },
  ],
  [
    'a channel message is channel:<id> in workspace:<team>',
    { channel: 'C1', channel_type: 'channel', team: 'T1' },
    { chat: 'channel:C1', space: 'workspace:T1' },
  ],
  ['a multi-person IM is group:<id>', { channel: 'G1', channel_type: 'mpim' }, { chat: 'group:G1' }],
  [
    'a thread reply is topic:<thread_ts> and answers in the thread',
    { channel: 'C1', channel_type: 'channel', thread_ts: '1699.1' },
    { topic: 'topic:1699.1', replyTo: 'C1#1699.1' },
  ],
  [
    'a mention of the bot user is stripped',
    { channel: 'C1', channel_type: 'channel', text: '<@UBOT> deploy please' },
    { text: 'deploy please', mentioned: true },
  ],
  ['edits and other subtypes are ignored', { channel: 'C1', subtype: 'message_changed' }, undefined],
  ['bot messages are ignored', { channel: 'C1', bot_id: 'B1' }, undefined],
];

for (const [name, fields, expected] of slackCases) {
  test(`slack: ${name}`, () => {
    const event = slackMessageSchema.parse({
      type: 'message',
      user: 'U1',
      text: 'hi',
      ts: '1700000000.000100',
      ...fields,
    });
    const message = fromSlackMessage(event, 'UBOT');
    if (!expected) return assert.is(message, undefined);
    for (const [key, value] of Object.entries(expected))
      assert.equal(message?.[key as keyof typeof message], value, key);
  });
}

test('slack: a thread target splits into channel and thread_ts', () => {
  assert.equal(slackTarget('C1#1699.1'), { channel: 'C1', thread_ts: '1699.1' });
  assert.equal(slackTarget('C1'), { channel: 'C1' });
});

test('replies are split at Discord 2000 and Slack 4000 characters', () => {
  const reply = Array.from({ length: 300 }, (_, i) => `line ${i} ${'z'.repeat(30)}`).join('\n');
  const forDiscord = splitMessage(reply, DISCORD_MAX_LENGTH);
  const forSlack = splitMessage(reply, SLACK_MAX_LENGTH);
  assert.ok(forDiscord.every((p) => p.length <= 2000) && forDiscord.length >= 6);
  assert.ok(forSlack.every((p) => p.length <= 4000) && forSlack.length >= 3);
  assert.is(forDiscord.join('\n'), reply);
  assert.is(forSlack.join('\n'), reply);
});

const choices = [
  { label: 'Approve', reply: '/approve 3f2a' },
  { label: 'Deny', reply: '/deny 3f2a' },
];

test('discord: choices are one action row of buttons whose custom ids are the replies', () => {
  assert.equal(discordChoiceRow(choices), {
    type: 1,
    components: [
      { type: 2, style: 1, label: 'Approve', custom_id: '/approve 3f2a' },
      { type: 2, style: 4, label: 'Deny', custom_id: '/deny 3f2a' },
    ],
  });
});

test('discord: a button press is its reply, from the presser, in the chat (and thread) of the button', () => {
  const press = fromDiscordButton(
    {
      id: 'i9',
      channelId: 't5',
      guildId: 'g1',
      threadParentId: 'c1',
      authorId: 'u2',
      authorName: 'bob',
      customId: '/deny 3f2a',
    },
    BOT,
  );
  assert.equal(press, {
    messageId: 'i9',
    chat: 'channel:c1',
    replyTo: 't5',
    sender: 'u2',
    senderAliases: ['u2', '@bob'],
    text: '/deny 3f2a',
    space: 'guild:g1',
    topic: 'topic:t5',
    mentioned: true,
  });
  assert.is(
    fromDiscordButton(
      {
        id: 'i10',
        channelId: 'dm7',
        guildId: null,
        threadParentId: null,
        authorId: 'u2',
        authorName: 'bob',
        customId: '/approve 3f2a',
      },
      BOT,
    )?.chat,
    'direct:dm7',
  );
});

test('slack: choices are a section and an actions block; a press comes back in the chat kind seen before', () => {
  assert.equal(slackChoiceBlocks('exec wants to run `ls`', choices), [
    { type: 'section', text: { type: 'mrkdwn', text: 'exec wants to run `ls`' } },
    {
      type: 'actions',
      block_id: 'tern_choices',
      elements: [
        {
          type: 'button',
          action_id: 'tern_choice_0',
          text: { type: 'plain_text', text: 'Approve' },
          value: '/approve 3f2a',
        },
        { type: 'button', action_id: 'tern_choice_1', text: { type: 'plain_text', text: 'Deny' }, value: '/deny 3f2a' },
      ],
    },
  ]);
  const body = slackButtonSchema.parse({
    type: 'block_actions',
    user: { id: 'U1', username: 'alice' },
    team: { id: 'T1' },
    channel: { id: 'G7' },
    container: { type: 'message', message_ts: '1700.2', thread_ts: '1699.1' },
    actions: [{ action_id: 'tern_choice_0', value: '/approve 3f2a', action_ts: '1700.3' }],
  });
  assert.equal(
    fromSlackButton(body, (channel) => (channel === 'G7' ? 'group' : undefined)),
    {
      messageId: 'G7:press:1700.3',
      chat: 'group:G7',
      replyTo: 'G7#1699.1',
      sender: 'U1',
      senderAliases: ['U1'],
      text: '/approve 3f2a',
      space: 'workspace:T1',
      topic: 'topic:1699.1',
      mentioned: true,
    },
  );
  assert.is(fromSlackButton({ ...body, channel: { id: 'D3' } }, () => undefined)?.chat, 'direct:D3');
  assert.is(
    fromSlackButton({ ...body, actions: [{ action_id: 'other', value: 'x' }] }, () => undefined),
    undefined,
  );
});

test.run();
