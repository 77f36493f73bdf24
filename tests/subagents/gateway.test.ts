import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Gateway } from '../../actors/gateway/gateway.js';
import type { Envelope } from '../../bus/index.js';
import { loadConfig } from '../../store/config/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { openGatewayLogs } from '../../store/logs/logger.js';
import { logDir } from '../../store/paths.js';
import { eventually } from '../support/eventually.js';
import { ManualClock } from '../support/gateway-clock.js';
import { gate, startRuleModel, type ModelRequest, type RuleModel } from '../support/rule-model.js';
import { freePort, TelegramEmulator } from '../support/telegram-emulator.js';
import { tempHome, type TempHome } from '../support/temp-home.js';

const TOKEN = '700022:subagent-token-SSSS';
const isChild = (r: ModelRequest): boolean => r.user.startsWith('You are a subagent');

interface Context {
  home: TempHome;
  model: RuleModel;
  emulator: TelegramEmulator;
  clock: ManualClock;
  gateway: Gateway;
  events: Envelope[];
  childMayReport: ReturnType<typeof gate>;
  logs: ReturnType<typeof openGatewayLogs>;
}

const test = suite<Context>('subagents in the gateway');

test.before(async (context) => {
  context.home = tempHome();
  context.childMayReport = gate();
  context.model = await startRuleModel((r) => {
    if (isChild(r)) {
      if (r.user.includes('hang forever')) return 'hang';
      if (r.last === 'tool') return { text: 'reported' };
      const content = /Task: (.*)$/.exec(r.user)?.[1] ?? '';
      return {
        calls: [{ name: 'message', arguments: { content } }],
        ...(content.startsWith('Inbox') ? { wait: context.childMayReport.wait } : {}),
      };
    }
    if (r.user.startsWith('Heartbeat:'))
      return r.last === 'tool'
        ? { text: 'HEARTBEAT_OK' }
        : { calls: [{ name: 'spawn', arguments: { task: 'Inbox: 3 new files', label: 'inbox' } }] };
    const spawn = /^spawn: (.*)$/.exec(r.user)?.[1];
    if (spawn && r.last !== 'tool') return { calls: [{ name: 'spawn', arguments: { task: spawn } }] };
    return { text: r.last === 'tool' ? 'on it' : `echo: ${r.user}` };
  });
  context.emulator = await TelegramEmulator.start();
  context.clock = new ManualClock();
  mkdirSync(context.home.workspace, { recursive: true });
  writeFileSync(
    join(context.home.workspace, 'HEARTBEAT.md'),
    '# Heartbeat tasks\n\n- Summarise the inbox (a long task)\n',
  );
  writeFileSync(
    join(context.home.home, 'config.json'),
    JSON.stringify({
      version: 2,
      gateway: { port: await freePort() },
      agents: { defaults: { model: 'fast' } },
      model_list: [
        {
          model_name: 'fast',
          provider: 'openai',
          model: 'gpt-test',
          api_base: `${context.model.url}/v1`,
          api_keys: ['sk-test-key-0001'],
        },
      ],
      heartbeat: { enabled: true, interval: 5 },
      channel_list: {
        telegram: {
          enabled: true,
          settings: { token: TOKEN, base_url: context.emulator.url, poll_timeout_seconds: 1, allow_from: ['*'] },
        },
      },
    }),
  );
  const loaded = loadConfig({ env: context.home.env });
  context.logs = openGatewayLogs(loaded);
  context.events = [];
  context.gateway = await Gateway.start({
    loaded,
    env: context.home.env,
    logs: context.logs,
    scheduler: context.clock,
    drainMs: 300,
    onRuntime: (core) => void core.bus.events$.subscribe((e) => context.events.push(e)),
  });
});

test.after(async (context) => {
  await context.gateway.stop().catch(() => undefined);
  context.logs.close();
  await context.emulator.stop();
  await context.model.close();
  context.home.remove();
});

test('a spawned child reports through message to the Telegram chat that asked', async ({ emulator }) => {
  await emulator.say(TOKEN, 'spawn: Report 7 is ready', { userId: 1001 });
  const messages = await emulator.waitForBotMessages(TOKEN, 1001, 2);
  assert.equal(messages.map((m) => m.text).sort(), ['Report 7 is ready', 'on it']);
});

test(
  'the heartbeat hands its long task to spawn and returns at once; ' + 'the child reports to the last active chat',
  async ({ emulator, clock, events, childMayReport }) => {
    await emulator.say(TOKEN, 'hello', { userId: 1001 });
    await emulator.waitForBotMessages(TOKEN, 1001, 3);
    const endedBefore = events.filter((e) => e.type === 'subagent.ended').length;
    clock.advance(5 * 60_000);
    const ticked = await eventually(() => events.some((e) => e.type === 'heartbeat.ticked'), true);
    assert.ok(ticked);
    // The heartbeat's turn ended while its subagent still waits for its model.
    assert.is(events.filter((e) => e.type === 'subagent.ended').length, endedBefore);
    assert.ok(events.some((e) => e.type === 'subagent.spawned' && e.data.label === 'inbox'));
    assert.is(
      events.filter((e): e is Envelope<'heartbeat.ticked'> => e.type === 'heartbeat.ticked')[0]!.data.outcome,
      'ran',
    );
    childMayReport.open();
    const messages = await emulator.waitForBotMessages(TOKEN, 1001, 4);
    assert.is(messages.at(-1)?.text, 'Inbox: 3 new files');
  },
);

test('a gateway stop cancels a subagent still running after the drain, and the log says why', async (context) => {
  await context.emulator.say(TOKEN, 'spawn: hang forever', { userId: 1002 });
  await context.model.request((r) => isChild(r) && r.user.includes('hang forever'));
  await context.gateway.stop();
  const log = EventLog.open(logDir(context.home.workspace), { readOnly: true });
  try {
    const ended = log
      .read({ type: 'subagent.ended' })
      .filter((e): e is Envelope<'subagent.ended'> => e.type === 'subagent.ended' && e.data.status === 'canceled');
    assert.equal(
      ended.map((e) => e.data.reason),
      ['the gateway is stopping'],
    );
    const aborted = log.read({ type: 'turn.aborted' }).filter((e) => e.task === ended[0]!.data.task_id);
    assert.equal(
      aborted.map((e) => (e as Envelope<'turn.aborted'>).data.reason),
      ['the gateway is stopping'],
    );
  } finally {
    log.close();
  }
});

test.run();
