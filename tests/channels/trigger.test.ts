import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  applyTrigger,
  senderListed,
  type TriggerDecision,
  type TriggerSettings,
} from '../../adapters/channels/trigger.js';

const open: TriggerSettings = { mention_only: false, prefixes: [] };
const alice = ['1001', '@alice'];

const listed: Array<{ name: string; allowFrom: string[]; expected: boolean }> = [
  { name: 'an empty allow_from lets nobody in (strangers get a pairing code)', allowFrom: [], expected: false },
  { name: '* lets everyone in', allowFrom: ['*'], expected: true },
  { name: 'allow_from by id', allowFrom: ['1001'], expected: true },
  { name: 'allow_from by @username, case-insensitive', allowFrom: ['@ALICE'], expected: true },
  { name: 'allow_from without the @', allowFrom: ['alice'], expected: true },
  { name: 'a sender not listed is not let in', allowFrom: ['@bob'], expected: false },
];

for (const c of listed) test(c.name, () => assert.is(senderListed(c.allowFrom, alice), c.expected));

const cases: Array<{
  name: string;
  settings: Partial<TriggerSettings>;
  chat: string;
  text: string;
  mentioned?: boolean;
  expected: TriggerDecision;
}> = [
  {
    name: 'a direct chat is for the bot',
    settings: {},
    chat: 'direct:1',
    text: 'hi',
    expected: { kind: 'accept', text: 'hi' },
  },
  {
    name: 'direct chats need no mention under mention_only',
    settings: { mention_only: true },
    chat: 'direct:1',
    text: 'hi',
    expected: { kind: 'accept', text: 'hi' },
  },
  {
    name: 'mention_only ignores an unaddressed group message',
    settings: { mention_only: true },
    chat: 'group:-5',
    text: 'hi all',
    expected: { kind: 'ignore', reason: 'not_addressed' },
  },
  {
    name: 'mention_only answers a mention',
    settings: { mention_only: true },
    chat: 'group:-5',
    text: 'hi bot',
    mentioned: true,
    expected: { kind: 'accept', text: 'hi bot' },
  },
  {
    name: 'a prefix addresses the bot and is stripped',
    settings: { prefixes: ['!ai', 'bot,'] },
    chat: 'group:-5',
    text: '!AI what time is it',
    expected: { kind: 'accept', text: 'what time is it' },
  },
  {
    name: 'with prefixes, a group message without one is ignored',
    settings: { prefixes: ['!ai'] },
    chat: 'group:-5',
    text: 'what time is it',
    expected: { kind: 'ignore', reason: 'not_addressed' },
  },
  {
    name: 'with prefixes, a mention still addresses the bot',
    settings: { prefixes: ['!ai'] },
    chat: 'group:-5',
    text: 'what time',
    mentioned: true,
    expected: { kind: 'accept', text: 'what time' },
  },
  {
    name: 'without trigger settings every group message is answered',
    settings: {},
    chat: 'group:-5',
    text: 'anyone?',
    expected: { kind: 'accept', text: 'anyone?' },
  },
];

for (const c of cases) {
  test(c.name, () => {
    const decision = applyTrigger(
      { ...open, ...c.settings },
      { chat: c.chat, text: c.text, mentioned: c.mentioned ?? false },
    );
    assert.equal(decision, c.expected);
  });
}

test.run();
