import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DISCORD_MAX_LENGTH, fromDiscordMessage, type DiscordMessageFacts } from '../../adapters/channels/discord-message.js';
import { fromSlackMessage, SLACK_MAX_LENGTH, slackMessageSchema, slackTarget } from '../../adapters/channels/slack-message.js';
import { splitMessage } from '../../adapters/channels/split.js';

const BOT = '900';
const discord = (facts: Partial<DiscordMessageFacts>): DiscordMessageFacts => ({
  id: 'm1', channelId: 'c1', guildId: 'g1', threadParentId: null, content: 'hi', authorId: 'u1', authorName: 'alice', authorIsBot: false, repliesToBot: false, ...facts,
});

const discordCases: Array<[string, Partial<DiscordMessageFacts>, Record<string, unknown> | undefined]> = [
  ['a DM is direct:<channel> with no space', { guildId: null, channelId: 'dm7' }, { chat: 'direct:dm7', replyTo: 'dm7', text: 'hi', mentioned: false }],
  ['a guild channel message is channel:<id> in guild:<id>', {}, { chat: 'channel:c1', space: 'guild:g1', text: 'hi', mentioned: false }],
  ['a mention <@bot> or <@!bot> is stripped and marks mentioned', { content: '<@!900> what now <@900>' }, { chat: 'channel:c1', space: 'guild:g1', text: 'what now', mentioned: true }],
  ['a thread is topic:<thread> of its parent channel; replies go to the thread', { channelId: 't5', threadParentId: 'c1' }, { chat: 'channel:c1', space: 'guild:g1', topic: 'topic:t5', replyTo: 't5', text: 'hi', mentioned: false }],
  ['a reply to the bot counts as a mention', { repliesToBot: true }, { chat: 'channel:c1', space: 'guild:g1', text: 'hi', mentioned: true }],
  ['messages from bots are ignored', { authorIsBot: true }, undefined],
  ['a bare mention with no text is ignored', { content: '<@900>' }, undefined],
];

for (const [name, facts, expected] of discordCases) {
  test(`discord: ${name}`, () => {
    const message = fromDiscordMessage(discord(facts), BOT);
    if (!expected) return assert.is(message, undefined);
    for (const [key, value] of Object.entries(expected)) assert.equal(message?.[key as keyof typeof message], value, key);
    assert.equal(message?.senderAliases, ['u1', '@alice']);
  });
}

const slackCases: Array<[string, Record<string, unknown>, Record<string, unknown> | undefined]> = [
  ['an IM is direct:<channel>', { channel: 'D1', channel_type: 'im' }, { chat: 'direct:D1', replyTo: 'D1', messageId: 'D1:1700000000.000100' }],
  ['a channel message is channel:<id> in workspace:<team>', { channel: 'C1', channel_type: 'channel', team: 'T1' }, { chat: 'channel:C1', space: 'workspace:T1' }],
  ['a multi-person IM is group:<id>', { channel: 'G1', channel_type: 'mpim' }, { chat: 'group:G1' }],
  ['a thread reply is topic:<thread_ts> and answers in the thread', { channel: 'C1', channel_type: 'channel', thread_ts: '1699.1' }, { topic: 'topic:1699.1', replyTo: 'C1#1699.1' }],
  ['a mention of the bot user is stripped', { channel: 'C1', channel_type: 'channel', text: '<@UBOT> deploy please' }, { text: 'deploy please', mentioned: true }],
  ['edits and other subtypes are ignored', { channel: 'C1', subtype: 'message_changed' }, undefined],
  ['bot messages are ignored', { channel: 'C1', bot_id: 'B1' }, undefined],
];

for (const [name, fields, expected] of slackCases) {
  test(`slack: ${name}`, () => {
    const event = slackMessageSchema.parse({ type: 'message', user: 'U1', text: 'hi', ts: '1700000000.000100', ...fields });
    const message = fromSlackMessage(event, 'UBOT');
    if (!expected) return assert.is(message, undefined);
    for (const [key, value] of Object.entries(expected)) assert.equal(message?.[key as keyof typeof message], value, key);
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

test.run();
