import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TelegramChannel } from '../../adapters/channels/telegram.js';
import { BoardInspector } from '../../actors/board.js';
import { ChannelActor } from '../../actors/gateway/channel-actor.js';
import { ChannelDirectory } from '../../actors/gateway/channel-directory.js';
import { clockOf } from '../../actors/scheduler.js';
import { channelBoard } from '../../machines/channel.js';
import { InProcessBus, type Envelope } from '../../bus/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { Logger } from '../../store/logs/logger.js';
import { movesOf } from '../support/actor-kit.js';
import { ManualClock } from '../support/gateway-clock.js';
import { freePort, TelegramEmulator } from '../support/telegram-emulator.js';
import { tempHome } from '../support/temp-home.js';
import { Redactor } from '../../store/config/index.js';

const until = async (check: () => boolean): Promise<void> => {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

test(
  'a channel that cannot connect is restarted with exponential backoff, ' +
    'each failure an event; connecting resets it',
  async () => {
    const home = tempHome();
    const log = EventLog.open(home.sessions);
    const bus = new InProcessBus(log);
    const events: Envelope[] = [];
    bus.events$.subscribe((e) => events.push(e));
    const clock = new ManualClock();
    const port = await freePort();
    const actor = new ChannelActor(
      { name: 'tg', kind: 'telegram', account: 'default' },
      async () => new TelegramChannel({ token: '1:t', baseUrl: `http://127.0.0.1:${port}`, pollTimeoutSeconds: 1 }),
      {
        bus,
        logger: new Logger([], 'error', Redactor.none),
        clock: clockOf(clock),
        backoff: { baseMs: 100, maxMs: 350 },
        directory: new ChannelDirectory(),
        inspect: new BoardInspector(bus, { channel: channelBoard }).inspect,
        accept: async () => undefined,
      },
    );
    const delays = (): Array<number | undefined> =>
      events.flatMap((e) => (e.type === 'channel.failed' ? [e.data.restart_in_ms] : []));
    let emulator: TelegramEmulator | undefined;
    try {
      actor.start();
      await until(() => delays().length === 1);
      for (let failures = 2; failures <= 4; failures++) {
        clock.advance(clock.pending()[0]!);
        await until(() => delays().length === failures);
      }
      assert.equal(delays(), [100, 200, 350, 350]);
      assert.equal(actor.status, {
        state: 'failed',
        reason: actor.status.state === 'failed' ? actor.status.reason : '',
        restartInMs: 350,
      });
      assert.is(actor.reported, true);
      emulator = await TelegramEmulator.start(port);
      clock.advance(350);
      await until(() => actor.status.state === 'connected');
      assert.ok(events.some((e) => e.type === 'channel.connected' && e.data.channel === 'tg'));
      assert.equal(movesOf(events, 'channel:tg'), [
        '->stopped xstate.init',
        'stopped->starting START',
        'starting->failed FAILED',
        'failed->starting after.backoff',
        'starting->failed FAILED',
        'failed->starting after.backoff',
        'starting->failed FAILED',
        'failed->starting after.backoff',
        'starting->failed FAILED',
        'failed->starting after.backoff',
        'starting->connected CONNECTED',
      ]);
    } finally {
      await actor.stop();
      await emulator?.stop();
      log.close();
      home.remove();
    }
  },
);

test.run();
