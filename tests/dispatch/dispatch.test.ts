import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dispatch, type DispatchFacts } from '../../actors/dispatch.js';
import { sessionIdOf } from '../../bus/index.js';
import { validateConfig, type Config } from '../../store/config/index.js';

function config(input: Record<string, unknown>): Config {
  const result = validateConfig({ version: 2, ...input });
  if (!result.ok) throw new Error(result.problems.join('; '));
  return result.config;
}

const rules = config({
  agents: {
    list: [
      { id: 'main' },
      { id: 'helper', default: true },
      { id: 'work' },
      { id: 'family' },
      { id: 'ops' },
      { id: 'bob' },
    ],
    dispatch: {
      rules: [
        { name: 'slack-workspace', agent: 'work', when: { channel: 'slack', space: 'workspace:T01' } },
        {
          name: 'family-group',
          agent: 'family',
          when: { channel: 'Telegram', chat: 'group:-100' },
          session_dimensions: ['chat', 'sender'],
        },
        {
          name: 'ops-topic',
          agent: 'ops',
          when: { chat: 'group:-200', topic: 'topic:7' },
          session_dimensions: ['topic'],
        },
        { name: 'bob-anywhere', agent: 'bob', when: { sender: '@Bob' } },
        { name: 'mentions-in-discord', agent: 'ops', when: { channel: 'discord', mentioned: true } },
        { name: 'second-account', agent: 'work', when: { account: 'Work_Bot' } },
        { name: 'never-reached', agent: 'main', when: { channel: 'slack', space: 'workspace:t01' } },
      ],
    },
  },
});

const base: DispatchFacts = {
  channel: 'telegram',
  account: 'default',
  chat: 'direct:42',
  sender: '42',
  mentioned: false,
};

const cases: Array<{
  name: string;
  facts: Partial<DispatchFacts>;
  agent: string;
  rule: string | undefined;
  key: string;
}> = [
  {
    name: 'no rule matches: the agent marked default',
    facts: {},
    agent: 'helper',
    rule: undefined,
    key: 'v=1|agent=helper|channel=telegram|account=default|chat=direct:42',
  },
  {
    name: 'space and channel both match',
    facts: { channel: 'slack', space: 'workspace:T01', chat: 'channel:C9' },
    agent: 'work',
    rule: 'slack-workspace',
    key: 'v=1|agent=work|channel=slack|account=default|chat=channel:c9',
  },
  {
    name: 'first match wins over a later identical rule (case-insensitive values)',
    facts: { channel: 'SLACK', space: 'WORKSPACE:t01', chat: 'channel:C9' },
    agent: 'work',
    rule: 'slack-workspace',
    key: 'v=1|agent=work|channel=slack|account=default|chat=channel:c9',
  },
  {
    name: 'only one of two fields matches: no match',
    facts: { channel: 'slack', space: 'workspace:T02' },
    agent: 'helper',
    rule: undefined,
    key: 'v=1|agent=helper|channel=slack|account=default|chat=direct:42',
  },
  {
    name: 'rule session_dimensions win: chat and sender',
    facts: { chat: 'group:-100', sender: '7' },
    agent: 'family',
    rule: 'family-group',
    key: 'v=1|agent=family|channel=telegram|account=default|chat=group:-100|sender=7',
  },
  {
    name: 'topic dimension keys a forum topic',
    facts: { chat: 'group:-200', topic: 'topic:7' },
    agent: 'ops',
    rule: 'ops-topic',
    key: 'v=1|agent=ops|channel=telegram|account=default|topic=topic:7',
  },
  {
    name: 'a different topic of the same group does not match',
    facts: { chat: 'group:-200', topic: 'topic:8' },
    agent: 'helper',
    rule: undefined,
    key: 'v=1|agent=helper|channel=telegram|account=default|chat=group:-200',
  },
  {
    name: 'sender matches an alias such as @username',
    facts: { sender: '99', senderAliases: ['99', '@bob'] },
    agent: 'bob',
    rule: 'bob-anywhere',
    key: 'v=1|agent=bob|channel=telegram|account=default|chat=direct:42',
  },
  {
    name: 'mentioned: true matches only mentions',
    facts: { channel: 'discord', chat: 'channel:5', space: 'guild:1', mentioned: true },
    agent: 'ops',
    rule: 'mentions-in-discord',
    key: 'v=1|agent=ops|channel=discord|account=default|chat=channel:5',
  },
  {
    name: 'mentioned: true does not match a plain message',
    facts: { channel: 'discord', chat: 'channel:5', space: 'guild:1' },
    agent: 'helper',
    rule: undefined,
    key: 'v=1|agent=helper|channel=discord|account=default|chat=channel:5',
  },
  {
    name: 'account matches the channel account, and the key names it',
    facts: { account: 'work_bot' },
    agent: 'work',
    rule: 'second-account',
    key: 'v=1|agent=work|channel=telegram|account=work_bot|chat=direct:42',
  },
];

for (const c of cases) {
  test(`dispatch: ${c.name}`, () => {
    const route = dispatch(rules, { ...base, ...c.facts });
    assert.is(route.agent, c.agent);
    assert.is(route.rule, c.rule);
    assert.is(route.sessionKey, c.key);
  });
}

const defaults: Array<{ name: string; input: Record<string, unknown>; agent: string; key: string }> = [
  {
    name: 'no agents listed: main',
    input: {},
    agent: 'main',
    key: 'v=1|agent=main|channel=telegram|account=default|chat=direct:42',
  },
  {
    name: 'no default marked: the first agent',
    input: { agents: { list: [{ id: 'first' }, { id: 'second' }] } },
    agent: 'first',
    key: 'v=1|agent=first|channel=telegram|account=default|chat=direct:42',
  },
  {
    name: 'session.dimensions [] shares one session per channel account',
    input: { session: { dimensions: [] } },
    agent: 'main',
    key: 'v=1|agent=main|channel=telegram|account=default',
  },
  {
    name: 'session.dimensions [sender]: one session per sender across chats',
    input: { session: { dimensions: ['sender'] } },
    agent: 'main',
    key: 'v=1|agent=main|channel=telegram|account=default|sender=42',
  },
  {
    name: 'dimensions keep policy order',
    input: { session: { dimensions: ['sender', 'chat'] } },
    agent: 'main',
    key: 'v=1|agent=main|channel=telegram|account=default|sender=42|chat=direct:42',
  },
];

for (const c of defaults) {
  test(`dispatch defaults: ${c.name}`, () => {
    const route = dispatch(config(c.input), base);
    assert.is(route.agent, c.agent);
    assert.is(route.sessionKey, c.key);
  });
}

test('the session id is sk_v1_ + hex sha256 of the key', () => {
  const route = dispatch(config({}), base);
  const expected =
    'sk_v1_' +
    createHash('sha256').update('v=1|agent=main|channel=telegram|account=default|chat=direct:42').digest('hex');
  assert.is(sessionIdOf(route.sessionKey), expected);
});

test.run();
