import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyTrigger, type TriggerDecision, type TriggerSettings } from '../../adapters/channels/trigger.js';

const open: TriggerSettings = { allow_from: [], mention_only: false, prefixes: [] };
const alice = ['1001', '@alice'];

const cases: Array<{ name: string; settings: Partial<TriggerSettings>; chat: string; text: string; mentioned?: boolean; sender?: string[]; expected: TriggerDecision }> = [
  { name: 'empty allow_from lets everyone in', settings: {}, chat: 'direct:1', text: 'hi', expected: { kind: 'accept', text: 'hi' } },
  { name: 'allow_from by id', settings: { allow_from: ['1001'] }, chat: 'direct:1', text: 'hi', expected: { kind: 'accept', text: 'hi' } },
  { name: 'allow_from by @username, case-insensitive', settings: { allow_from: ['@ALICE'] }, chat: 'direct:1', text: 'hi', expected: { kind: 'accept', text: 'hi' } },
  { name: 'allow_from without the @', settings: { allow_from: ['alice'] }, chat: 'direct:1', text: 'hi', expected: { kind: 'accept', text: 'hi' } },
  { name: 'a sender not listed is ignored', settings: { allow_from: ['@bob'] }, chat: 'direct:1', text: 'hi', expected: { kind: 'ignore', reason: 'not_allowed' } },
  { name: 'direct chats need no mention under mention_only', settings: { mention_only: true }, chat: 'direct:1', text: 'hi', expected: { kind: 'accept', text: 'hi' } },
  { name: 'mention_only ignores an unaddressed group message', settings: { mention_only: true }, chat: 'group:-5', text: 'hi all', expected: { kind: 'ignore', reason: 'not_addressed' } },
  { name: 'mention_only answers a mention', settings: { mention_only: true }, chat: 'group:-5', text: 'hi bot', mentioned: true, expected: { kind: 'accept', text: 'hi bot' } },
  { name: 'a prefix addresses the bot and is stripped', settings: { prefixes: ['!ai', 'bot,'] }, chat: 'group:-5', text: '!AI what time is it', expected: { kind: 'accept', text: 'what time is it' } },
  { name: 'with prefixes, a group message without one is ignored', settings: { prefixes: ['!ai'] }, chat: 'group:-5', text: 'what time is it', expected: { kind: 'ignore', reason: 'not_addressed' } },
  { name: 'with prefixes, a mention still addresses the bot', settings: { prefixes: ['!ai'] }, chat: 'group:-5', text: 'what time', mentioned: true, expected: { kind: 'accept', text: 'what time' } },
  { name: 'without trigger settings every group message is answered', settings: {}, chat: 'group:-5', text: 'anyone?', expected: { kind: 'accept', text: 'anyone?' } },
];

for (const c of cases) {
  test(c.name, () => {
    const decision = applyTrigger({ ...open, ...c.settings }, { chat: c.chat, text: c.text, mentioned: c.mentioned ?? false, senderAliases: c.sender ?? alice });
    assert.equal(decision, c.expected);
  });
}

test.run();
