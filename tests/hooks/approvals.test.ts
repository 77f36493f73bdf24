import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Gateway } from '../../actors/gateway/gateway.js';
import type { Envelope } from '../../bus/index.js';
import { loadConfig } from '../../store/config/index.js';
import { openGatewayLogs } from '../../store/logs/logger.js';
import { passes } from '../support/eventually.js';
import { freePort, TelegramEmulator } from '../support/telegram-emulator.js';
import { tempHome } from '../support/temp-home.js';
import { completion } from '../support/vendor-chat-completions.js';
import { startVendorServer, type VendorServer } from '../support/vendor-server.js';

const TOKEN = '777:approval-bot-token-AAAA';
const USER = 1001;
const PROMPT = /^exec wants to run echo approved-run — reply \/approve ([0-9a-f]{4}) or \/deny \1$/;

const execCall = (id: string, command: string) =>
  completion(
    { tool_calls: [{ id, type: 'function', function: { name: 'exec', arguments: JSON.stringify({ command }) } }] },
    'tool_calls',
  );
/** The last message of the model request `index`: the tool result it was sent back. */
const lastMessage = (vendor: VendorServer, index: number) =>
  (JSON.parse(vendor.requests[index]!.body.toString()) as { messages: Array<Record<string, unknown>> }).messages.at(-1);

interface Running {
  emulator: TelegramEmulator;
  vendor: VendorServer;
  events: Envelope[];
  close(): Promise<void>;
}

/** `tern gateway` in this process: a Telegram channel on the emulator, exec needing approval, the model scripted. */
async function startGateway(approvalTimeoutMs: number, allowFrom: string[] = ['*']): Promise<Running> {
  const home = tempHome();
  const vendor = await startVendorServer();
  const emulator = await TelegramEmulator.start();
  writeFileSync(
    join(home.home, 'config.json'),
    JSON.stringify({
      version: 2,
      gateway: { port: await freePort() },
      heartbeat: { enabled: false },
      agents: { defaults: { model: 'fast' } },
      model_list: [
        {
          model_name: 'fast',
          provider: 'openai',
          model: 'gpt-test',
          api_base: `${vendor.url}/v1`,
          api_keys: ['sk-test-key-0001'],
        },
      ],
      channel_list: {
        telegram: {
          enabled: true,
          settings: { token: TOKEN, base_url: emulator.url, poll_timeout_seconds: 1, allow_from: allowFrom },
        },
      },
      tools: { exec: { require_approval: true, allow_remote: true } },
      hooks: { defaults: { approval_timeout_ms: approvalTimeoutMs } },
    }),
  );
  const loaded = loadConfig({ env: home.env });
  const logs = openGatewayLogs(loaded);
  const gateway = await Gateway.start({ loaded, env: home.env, logs });
  const events: Envelope[] = [];
  gateway.core.bus.events$.subscribe((event) => events.push(event));
  return {
    emulator,
    vendor,
    events,
    close: async () => {
      await gateway.stop();
      logs.close();
      await emulator.stop();
      await vendor.close();
      home.remove();
    },
  };
}

const texts = (emulator: TelegramEmulator) => emulator.botMessages(TOKEN, USER).map((m) => m.text);
const of = <T extends Envelope['type']>(events: Envelope[], type: T) =>
  events.filter((e): e is Envelope<T> => e.type === type);

/** Sends the message and waits for the approval question; returns its id and the question's message. */
async function askedFor(running: Running, text: string): Promise<{ id: string; messageId: number }> {
  await running.emulator.say(TOKEN, text, { userId: USER });
  const [question] = await running.emulator.waitForBotMessages(TOKEN, USER, 1);
  const id = PROMPT.exec(question!.text)?.[1];
  assert.ok(id, `not an approval question: ${question!.text}`);
  return { id, messageId: question!.messageId };
}

test(
  'an exec call that needs approval asks in the same chat with buttons, ' + 'waits, and runs after /approve',
  async () => {
    const running = await startGateway(30_000);
    try {
      running.vendor.reply(execCall('c1', 'echo approved-run'), completion({ content: 'Ran it.' }));
      const { id, messageId } = await askedFor(running, 'please run it');
      assert.equal(running.emulator.keyboard(TOKEN, messageId), [
        [
          ['Approve', `/approve ${id}`],
          ['Deny', `/deny ${id}`],
        ],
      ]);
      assert.is(running.vendor.requests.length, 1, 'the turn waits: no second model call before the answer');
      await running.emulator.say(TOKEN, '/approve ffff', { userId: USER });
      await running.emulator.say(TOKEN, `/approve ${id}`, { userId: USER });
      await running.emulator.waitForBotMessages(TOKEN, USER, 4);
      assert.equal(
        texts(running.emulator).slice(1).sort(),
        ['Approved: exec goes ahead.', 'No tool call ffff is waiting for approval here.', 'Ran it.'].sort(),
      );
      assert.equal(lastMessage(running.vendor, 1), { role: 'tool', tool_call_id: 'c1', content: 'approved-run\n' });
      assert.equal(
        of(running.events, 'approval.answered').map((e) => e.data),
        [{ approval_id: id, approved: true, by: 'user', sender: String(USER) }],
      );
      assert.equal(
        of(running.events, 'hook.decided').map((e) => e.data),
        [{ hook: 'chat', point: 'approve_tool', call_id: 'c1', action: 'continue', reason: 'approved in the chat' }],
      );
    } finally {
      await running.close();
    }
  },
);

test('the Deny button answers the question: the call does not run and the model is told', async () => {
  const running = await startGateway(30_000);
  try {
    running.vendor.reply(execCall('c1', 'echo approved-run'), completion({ content: 'Understood, not running it.' }));
    const { id } = await askedFor(running, 'please run it');
    await running.emulator.press(TOKEN, `/deny ${id}`, { userId: USER });
    await running.emulator.waitForBotMessages(TOKEN, USER, 3);
    assert.equal(texts(running.emulator).slice(1).sort(), [
      'Denied: exec will not run.',
      'Understood, not running it.',
    ]);
    assert.equal(lastMessage(running.vendor, 1), {
      role: 'tool',
      tool_call_id: 'c1',
      content: 'Tool call not approved: denied in the chat',
    });
    assert.equal(
      of(running.events, 'hook.decided').map((e) => e.data.action),
      ['deny_tool'],
    );
  } finally {
    await running.close();
  }
});

test('an approval nobody answers is denied when approval_timeout_ms runs out, and the turn goes on', async () => {
  const running = await startGateway(600);
  try {
    running.vendor.reply(execCall('c1', 'echo approved-run'), completion({ content: 'Nobody approved it.' }));
    const { id } = await askedFor(running, 'please run it');
    await running.emulator.waitForBotMessages(TOKEN, USER, 2);
    assert.equal(texts(running.emulator), [texts(running.emulator)[0], 'Nobody approved it.']);
    assert.equal(lastMessage(running.vendor, 1), {
      role: 'tool',
      tool_call_id: 'c1',
      content: 'Tool call not approved: no answer in the chat within 600 ms',
    });
    await passes(() =>
      assert.equal(
        of(running.events, 'approval.answered').map((e) => e.data),
        [{ approval_id: id, approved: false, by: 'timeout', reason: 'no answer in the chat within 600 ms' }],
      ),
    );
    // A late answer finds nothing waiting.
    await running.emulator.say(TOKEN, `/approve ${id}`, { userId: USER });
    await running.emulator.waitForBotMessages(TOKEN, USER, 3);
    assert.is(texts(running.emulator)[2], `No tool call ${id} is waiting for approval here.`);
  } finally {
    await running.close();
  }
});

const GROUP = -5001;
const ALICE = { userId: 1001, userName: 'alice', chatId: GROUP, type: 'group' as const };
const BOB = { userId: 1002, userName: 'bob', chatId: GROUP, type: 'group' as const };
const groupTexts = (emulator: TelegramEmulator) => emulator.botMessages(TOKEN, GROUP).map((m) => m.text);

/** Alice asks in the group; returns the approval id of the question the bot put there. */
async function askedInGroup(running: Running): Promise<string> {
  running.vendor.reply(execCall('c1', 'echo approved-run'), completion({ content: 'Ran it.' }));
  await running.emulator.say(TOKEN, 'please run it', ALICE);
  const [question] = await running.emulator.waitForBotMessages(TOKEN, GROUP, 1);
  const id = PROMPT.exec(question!.text)?.[1];
  assert.ok(id, `not an approval question: ${question!.text}`);
  return id;
}

test('in a group, only whoever caused a call may /approve or /deny it; other members are refused', async () => {
  const running = await startGateway(30_000);
  try {
    const id = await askedInGroup(running);
    await running.emulator.say(TOKEN, `/approve ${id}`, BOB);
    await running.emulator.waitForBotMessages(TOKEN, GROUP, 2);
    await running.emulator.say(TOKEN, `/deny ${id}`, BOB);
    await running.emulator.waitForBotMessages(TOKEN, GROUP, 3);
    const refusal = `Only the person who asked (or an owner of this bot) can answer ${id}.`;
    assert.equal(groupTexts(running.emulator).slice(1), [refusal, refusal]);
    assert.equal(of(running.events, 'approval.answered'), [], 'the call still waits');
    assert.is(running.vendor.requests.length, 1);

    await running.emulator.say(TOKEN, `/approve ${id}`, ALICE);
    await running.emulator.waitForBotMessages(TOKEN, GROUP, 5);
    assert.equal(groupTexts(running.emulator).slice(3).sort(), ['Approved: exec goes ahead.', 'Ran it.']);
    const answers = of(running.events, 'approval.answered').map((e) => e.data);
    assert.equal(answers, [{ approval_id: id, approved: true, by: 'user', sender: '1001' }]);
    assert.equal(lastMessage(running.vendor, 1), { role: 'tool', tool_call_id: 'c1', content: 'approved-run\n' });
  } finally {
    await running.close();
  }
});

test('an owner named in allow_from (by id or @username) may answer a call another member caused', async () => {
  const running = await startGateway(30_000, ['1001', '@Bob']);
  try {
    const id = await askedInGroup(running);
    await running.emulator.say(TOKEN, `/approve ${id}`, BOB);
    await running.emulator.waitForBotMessages(TOKEN, GROUP, 3);
    assert.equal(groupTexts(running.emulator).slice(1).sort(), ['Approved: exec goes ahead.', 'Ran it.']);
    const answers = of(running.events, 'approval.answered').map((e) => e.data);
    assert.equal(answers, [{ approval_id: id, approved: true, by: 'user', sender: '1002' }]);
  } finally {
    await running.close();
  }
});

test.run();
