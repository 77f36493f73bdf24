import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ChannelError } from '../../adapters/channels/channel.js';
import { createChannel } from '../../actors/gateway/channel-factory.js';
import { validateConfig } from '../../store/config/index.js';
import { startClockedGateway, logLines } from '../support/clocked-gateway.js';
import { ManualClock } from '../support/gateway-clock.js';
import { eventually } from '../support/eventually.js';

const DAY = 24 * 60 * 60_000;
const reloads = (events: Array<{ type: string }>): number => events.filter((e) => e.type === 'config.reloaded').length;

test(
  'the config-file check runs every 2 s × power.poll_interval_multiplier, ' +
    'and a reloaded multiplier sets the next pause',
  async () => {
    const g = await startClockedGateway({ power: { poll_interval_multiplier: 5 } });
    try {
      g.config.heartbeat = { interval: 45 };
      g.rewrite();
      g.clock.advance(9_999);
      assert.is(reloads(g.events), 0, 'not before 10 s');
      g.clock.advance(1);
      assert.is(reloads(g.events), 1, 'at 10 s');

      g.config.power = { poll_interval_multiplier: 2 };
      g.rewrite();
      g.clock.advance(10_000);
      assert.is(reloads(g.events), 2);
      // From the check that applied it on, the pause is 2 s × 2.
      g.config.heartbeat = { interval: 50 };
      g.rewrite();
      g.clock.advance(3_999);
      assert.is(reloads(g.events), 2, 'not before 4 s');
      g.clock.advance(1);
      assert.is(reloads(g.events), 3, 'at 4 s');
      const changed = g.events.flatMap((e) => (e.type === 'config.reloaded' ? [e.data.changed] : []));
      assert.equal(changed, [['heartbeat.interval'], ['power.poll_interval_multiplier'], ['heartbeat.interval']]);
    } finally {
      await g.close();
    }
  },
);

test(
  'power.low_power stretches the config-file check as a multiplier of 5 does; ' + 'a larger multiplier wins',
  async () => {
    const g = await startClockedGateway({ power: { low_power: true } });
    try {
      g.config.heartbeat = { interval: 45 };
      g.rewrite();
      g.clock.advance(9_999);
      assert.is(reloads(g.events), 0, 'not before 10 s');
      g.clock.advance(1);
      assert.is(reloads(g.events), 1, 'at 10 s');

      g.config.power = { low_power: true, poll_interval_multiplier: 8 };
      g.rewrite();
      g.clock.advance(10_000);
      assert.is(reloads(g.events), 2);
      g.config.heartbeat = { interval: 50 };
      g.rewrite();
      g.clock.advance(15_999);
      assert.is(reloads(g.events), 2, 'not before 16 s');
      g.clock.advance(1);
      assert.is(reloads(g.events), 3, 'at 16 s');
    } finally {
      await g.close();
    }
  },
);

test(
  'inbound media older than tools.media_cleanup.max_age_minutes ' +
    'go every 30 minutes × the multiplier; a reload reschedules',
  async () => {
    const g = await startClockedGateway({ power: { poll_interval_multiplier: 3 } });
    try {
      const inbound = join(g.home.workspace, 'media', 'inbound');
      mkdirSync(join(inbound, 'kept-folder'), { recursive: true });
      const file = (name: string, ageMs: number): string => {
        const path = join(inbound, name);
        writeFileSync(path, 'voice');
        const at = new Date(g.clock.now() - ageMs);
        utimesSync(path, at, at);
        return path;
      };
      const old = file('m1-old.ogg', 8 * DAY);
      const fresh = file('m2-fresh.ogg', 6 * DAY);
      g.clock.advance(90 * 60_000 - 1);
      assert.ok(existsSync(old), 'not before 90 minutes');
      g.clock.advance(1);
      assert.equal([existsSync(old), existsSync(fresh), existsSync(join(inbound, 'kept-folder'))], [false, true, true]);
      assert.ok(
        logLines(join(g.home.home, 'logs', 'gateway.log')).includes(
          'INFO inbound media removed count=1 max_age_minutes=10080',
        ),
      );

      // A reload of tools.media_cleanup applies at once: sweeps every 10 × 3 minutes from now, with the new age.
      g.config.tools = { media_cleanup: { interval_minutes: 10, max_age_minutes: 60 } };
      g.rewrite();
      g.clock.advance(6_000);
      assert.is(reloads(g.events), 1);
      const hourOld = file('m3-hour.ogg', 61 * 60_000);
      g.clock.advance(30 * 60_000 - 1);
      assert.ok(existsSync(hourOld), 'not before 30 minutes');
      g.clock.advance(1);
      assert.equal([existsSync(hourOld), existsSync(fresh)], [false, false]);
    } finally {
      await g.close();
    }
  },
);

test('with tools.media_cleanup.enabled false nothing is removed', async () => {
  const g = await startClockedGateway({ tools: { media_cleanup: { enabled: false } } });
  try {
    const inbound = join(g.home.workspace, 'media', 'inbound');
    mkdirSync(inbound, { recursive: true });
    const path = join(inbound, 'm1-old.ogg');
    writeFileSync(path, 'voice');
    utimesSync(path, new Date(0), new Date(0));
    g.clock.advance(DAY);
    assert.ok(existsSync(path));
  } finally {
    await g.close();
  }
});

/** A Bot API that knows the bot and never answers a long poll (a connection that went quiet). */
async function silentBotApi(): Promise<{ url: string; polls: () => number; close(): Promise<void> }> {
  let polls = 0;
  const json = (res: ServerResponse, value: unknown): void =>
    void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
  const server = createServer((req, res) => {
    if (req.url?.endsWith('/getMe'))
      return json(res, { ok: true, result: { id: 7, is_bot: true, first_name: 'Tern', username: 'tern_bot' } });
    if (req.url?.endsWith('/getUpdates')) polls++;
    else json(res, { ok: true, result: true });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    polls: () => polls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

test(
  'channel maintenance: a Telegram long poll is taken as ' + 'stalled 10 s × the multiplier after its own timeout',
  async () => {
    const api = await silentBotApi();
    try {
      for (const [multiplier, graceMs] of [
        [1, 10_000],
        [5, 50_000],
      ] as const) {
        const result = validateConfig({
          version: 2,
          channel_list: {
            telegram: {
              enabled: true,
              settings: { token: '700001:alpha', base_url: api.url, poll_timeout_seconds: 1 },
            },
          },
        });
        if (!result.ok) throw new Error(result.problems.join('; '));
        const clock = new ManualClock();
        const channel = await createChannel('telegram', result.config.channel_list.telegram!, multiplier, clock);
        const polls = api.polls();
        let failure: Error | undefined;
        const failed = new Promise<void>((resolve) => {
          void channel.start({
            onMessage() {},
            onConnected() {},
            onFailed: (error) => {
              failure = error;
              resolve();
            },
          });
        });
        await eventually(() => api.polls() > polls, true);
        clock.advance(1_000 + graceMs - 1);
        const due = `multiplier ${multiplier}: the stall is due at ${1_000 + graceMs} ms, not before`;
        assert.ok(clock.pending().includes(1), due);
        assert.is(failure, undefined, `multiplier ${multiplier}: not before ${1_000 + graceMs} ms`);
        clock.advance(1);
        await Promise.race([failed, new Promise((resolve) => setTimeout(resolve, 15_000))]);
        assert.ok(failure instanceof ChannelError, `multiplier ${multiplier}: stalled at ${1_000 + graceMs} ms`);
        assert.equal(
          [(failure as ChannelError).code, failure!.message],
          ['stalled', 'getUpdates gave no answer within 1 s'],
        );
        await channel.stop();
      }
    } finally {
      await api.close();
    }
  },
);

test.run();
