import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type WebSocket from 'ws';
import type { Envelope, EventType } from '../../bus/index.js';
import { call } from '../launcher/launcher-harness.js';
import { chatSocket, replyStreamed, startDashboard, type Dashboard, type Frame } from '../support/dashboard-harness.js';

const strip = (frames: Frame[]) => frames.map((f) => [f.type, f.payload.content ?? null]);

/** The log's events of one type, once it has committed what was published so far (the chat hears of them first). */
async function events<T extends EventType>(dashboard: Dashboard, type: T): Promise<Array<Envelope<T>>> {
  await dashboard.host.log()?.committed();
  return (
    (await call(dashboard.launcher, `/api/events?type=${type}&order=asc`, { cookie: dashboard.cookie })).body as {
      events: Array<Envelope<T>>;
    }
  ).events;
}

/** Sends `text` and collects frames up to the first of type `last`. */
function framesUntil(socket: WebSocket, last: string, text: string): Promise<Frame[]> {
  return new Promise((resolve) => {
    const seen: Frame[] = [];
    const collect = (data: WebSocket.RawData): void => {
      seen.push(JSON.parse(String(data)) as Frame);
      if (seen.at(-1)?.type !== last) return;
      socket.off('message', collect);
      resolve(seen);
    };
    socket.on('message', collect);
    socket.send(text);
  });
}

function gatewayPort(dashboard: Dashboard): number {
  return (JSON.parse(readFileSync(join(dashboard.home.home, 'config.json'), 'utf8')) as { gateway: { port: number } })
    .gateway.port;
}

test(
  'the launcher runs the gateway: ' + 'its health server answers on gateway.port and /ready lists the web-UI channel',
  async () => {
    const dashboard = await startDashboard();
    try {
      const base = `http://127.0.0.1:${gatewayPort(dashboard)}`;
      const health = await fetch(`${base}/health`);
      assert.equal([health.status, await health.json()], [200, { status: 'ok' }]);
      const ready = await fetch(`${base}/ready`);
      assert.equal(
        [ready.status, await ready.json()],
        [200, { status: 'ready', channels: [{ name: 'web', state: 'connected' }] }],
      );
    } finally {
      await dashboard.close();
    }
  },
);

test(
  'with gateway.port taken by another program the gateway still runs, ' +
    'without a health server, and says so in its log',
  async () => {
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const port = (squatter.address() as { port: number }).port;
    const dashboard = await startDashboard({ gatewayPort: port });
    try {
      const status = (await call(dashboard.launcher, '/api/gateway/status', { cookie: dashboard.cookie })).body as {
        state: string;
      };
      assert.is(status.state, 'running');
      const warnings = (await call(dashboard.launcher, '/api/logs?level=warn', { cookie: dashboard.cookie })).body as {
        lines: string[];
      };
      assert.equal(
        warnings.lines.map((line) => line.split(' ').slice(1, 7).join(' ')),
        [`WARN health server not started address=127.0.0.1:${port}`],
      );
      const chat = await chatSocket(dashboard);
      replyStreamed(dashboard.vendor, ['still ', 'here']);
      assert.equal(strip(await chat.send('hi')), [
        ['typing.start', null],
        ['message.create', 'still '],
        ['message.update', 'still here'],
        ['typing.stop', null],
      ]);
      chat.socket.close();
    } finally {
      await dashboard.close();
      await new Promise((resolve) => squatter.close(resolve));
    }
  },
);

test(
  'with no pico entry in channel_list the launcher adds one named pico, ' + 'with streaming off: the reply comes whole',
  async () => {
    const dashboard = await startDashboard({ channels: {} });
    const chat = await chatSocket(dashboard);
    try {
      replyStreamed(dashboard.vendor, ['Hel', 'lo']);
      assert.equal(strip(await chat.send('hi')), [
        ['typing.start', null],
        ['message.create', 'Hello'],
        ['typing.stop', null],
      ]);
      const [started] = await events(dashboard, 'gateway.started');
      assert.equal(started?.data, { pid: process.pid, channels: ['pico'] });
      const [received] = await events(dashboard, 'message.received');
      assert.equal(
        [received?.data.channel, received?.data.kind, received?.data.chat, received?.data.text],
        ['pico', 'pico', 'direct:webtest', 'hi'],
      );
      const [routed] = await events(dashboard, 'message.routed');
      assert.equal(
        [routed?.data.session_key, routed?.data.reply],
        [
          'v=1|agent=main|channel=pico|account=default|chat=direct:webtest',
          { channel: 'pico', chat: 'direct:webtest', reply_to: 'webtest' },
        ],
      );
    } finally {
      chat.socket.close();
      await dashboard.close();
    }
  },
);

test(
  "hot reload: adding a pico entry of the user's own " + 'replaces the implicit one, and its streaming applies',
  async () => {
    const dashboard = await startDashboard({ channels: {} });
    const file = join(dashboard.home.home, 'config.json');
    try {
      const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      writeFileSync(
        file,
        JSON.stringify(
          {
            ...config,
            channel_list: { web: { enabled: true, type: 'pico', settings: { streaming: { enabled: true } } } },
          },
          null,
          2,
        ),
      );
      // The reload starts web and stops pico, in either order: both are waited for.
      const stateOf = async (name: string) =>
        (
          (await call(dashboard.launcher, `/api/actors/channel:${name}`, { cookie: dashboard.cookie })).body as {
            state?: string;
          }
        ).state;
      let states: Array<string | undefined> = [];
      for (let tries = 0; tries < 600 && !isDeepStrictEqual(states, ['connected', 'stopped']); tries++) {
        await sleep(50);
        states = [await stateOf('web'), await stateOf('pico')];
      }
      assert.equal(states, ['connected', 'stopped']);
      const chat = await chatSocket(dashboard);
      replyStreamed(dashboard.vendor, ['Hel', 'lo']);
      assert.equal(strip(await chat.send('hi')), [
        ['typing.start', null],
        ['message.create', 'Hel'],
        ['message.update', 'Hello'],
        ['typing.stop', null],
      ]);
      chat.socket.close();
    } finally {
      await dashboard.close();
    }
  },
);

test(
  'web chat goes through the dispatcher: ' + 'chat commands answer in the chat, and a resent frame id is answered once',
  async () => {
    const dashboard = await startDashboard();
    const chat = await chatSocket(dashboard);
    try {
      const help = await chat.send('/help');
      assert.equal(
        help.map((f) => f.type),
        ['typing.start', 'message.create', 'typing.stop'],
      );
      const [handled] = await events(dashboard, 'command.handled');
      assert.equal([handled?.data.command, help[1]?.payload.content], ['help', handled?.data.reply]);

      replyStreamed(dashboard.vendor, ['once']);
      const withId = JSON.stringify({
        type: 'message.send',
        id: 'm1',
        session_id: 'webtest',
        payload: { content: 'hello' },
      });
      assert.equal(strip(await framesUntil(chat.socket, 'typing.stop', withId)), [
        ['typing.start', null],
        ['message.create', 'once'],
        ['typing.stop', null],
      ]);
      chat.socket.send(withId);
      const afterResend = await framesUntil(chat.socket, 'pong', JSON.stringify({ type: 'ping', payload: {} }));
      assert.equal(
        afterResend.map((f) => f.type),
        ['pong'],
        'the resent message was a duplicate',
      );
      assert.is(dashboard.vendor.requests.length, 1);
    } finally {
      chat.socket.close();
      await dashboard.close();
    }
  },
);

test('allow_from applies to the web chat: a sender not listed gets no answer', async () => {
  const dashboard = await startDashboard({
    channels: { web: { enabled: true, type: 'pico', settings: { allow_from: ['alice'] } } },
  });
  const chat = await chatSocket(dashboard);
  try {
    chat.socket.send(JSON.stringify({ type: 'message.send', session_id: 'webtest', payload: { content: 'hello' } }));
    const frames = await framesUntil(chat.socket, 'pong', JSON.stringify({ type: 'ping', payload: {} }));
    assert.equal(
      frames.map((f) => f.type),
      ['pong'],
    );
    assert.equal(await events(dashboard, 'message.received'), []);
  } finally {
    chat.socket.close();
    await dashboard.close();
  }
});

test('a second enabled pico entry fails with a reason naming the one that serves the chat', async () => {
  const dashboard = await startDashboard({
    channels: {
      web: { enabled: true, type: 'pico' },
      web2: { enabled: true, type: 'pico', settings: { restart_backoff_ms: 600000 } },
    },
  });
  try {
    const ready = await fetch(`http://127.0.0.1:${gatewayPort(dashboard)}/ready`);
    const body = (await ready.json()) as { channels: Array<{ name: string; state: string; reason?: string }> };
    const states = Object.fromEntries(body.channels.map((c) => [c.name, [c.state, c.reason ?? null]]));
    assert.equal(states, {
      web: ['connected', null],
      web2: [
        'refused',
        'channel_list.web2: the web-UI chat is already served by channel_list.web (one pico entry may be enabled)',
      ],
    });
  } finally {
    await dashboard.close();
  }
});

test.run();
