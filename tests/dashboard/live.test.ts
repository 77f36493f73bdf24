import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import type { LiveFrame } from '../../adapters/launcher/live.js';
import type { Envelope } from '../../bus/index.js';
import { startDashboard } from '../support/dashboard-harness.js';

function nextEvent(socket: WebSocket, type: string): Promise<Envelope> {
  return new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const frame = JSON.parse(String(data)) as LiveFrame;
      if (frame.type !== 'event' || frame.event.type !== type) return;
      socket.off('message', onMessage);
      resolve(frame.event);
    };
    socket.on('message', onMessage);
  });
}

test(
  '/api/live streams each bus event as {"type":"event","event"} ' + 'and keeps streaming across a gateway restart',
  async () => {
    const dashboard = await startDashboard();
    const socket = new WebSocket(`${dashboard.launcher.url.replace('http', 'ws')}/api/live`, {
      headers: { cookie: dashboard.cookie, origin: dashboard.launcher.url },
    });
    try {
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      const first = nextEvent(socket, 'heartbeat.ticked');
      dashboard.host.publish({ type: 'heartbeat.ticked', data: { outcome: 'skipped', reason: 'no_tasks' } });
      assert.equal((await first).data, { outcome: 'skipped', reason: 'no_tasks' });

      const started = nextEvent(socket, 'gateway.started');
      await dashboard.host.requestGateway('restart', 'test');
      assert.equal(
        (await started).data,
        { pid: process.pid, channels: ['web'] },
        'the channel_list entry of type pico',
      );
      const after = nextEvent(socket, 'cron.fired');
      dashboard.host.publish({ type: 'cron.fired', data: { job: 'j1', kind: 'message' } });
      assert.equal((await after).data, { job: 'j1', kind: 'message' });
    } finally {
      socket.close();
      await dashboard.close();
    }
  },
);

test.run();
