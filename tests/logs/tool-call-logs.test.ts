import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../bus/index.js';
import { writeLastChannel } from '../../store/state.js';
import { startClockedGateway, logLines, readText } from '../support/clocked-gateway.js';
import { eventually } from '../support/eventually.js';

const toolLines = (path: string): string[] =>
  logLines(path)
    .filter((line) => / tool (call|done) /.test(` ${line} `))
    .map((line) => line.replace(/turn=t_\S+/, 'turn=T').replace(/ms=\d+/, 'ms=N'));

test(
  'a tool call is logged with its argument keys and their count, never a value: ' +
    'gateway.log, AGENT_LOG_FILE and heartbeat.log',
  async () => {
    const extra = join(process.env.TMPDIR ?? '/tmp', `tern-extra-${process.pid}-${Date.now()}.log`);
    const g = await startClockedGateway({}, { AGENT_LOG_FILE: extra });
    try {
      g.say('NOTE the door code is PLAINVALUE-7731');
      assert.is(await eventually(() => g.sent.length, 2), 2);
      assert.equal(g.sent, ['the door code is PLAINVALUE-7731', 'noted']);
      const requested = g.events.find((e): e is Envelope<'tool.requested'> => e.type === 'tool.requested');
      // The event log keeps the value (replay needs it); the text logs do not.
      assert.equal(requested?.data.arguments, { content: 'the door code is PLAINVALUE-7731' });
      const gatewayLog = join(g.home.home, 'logs', 'gateway.log');
      const expected = [
        'INFO tool call tool=message call=call_note turn=T arg_count=1 arg_keys=content',
        'INFO tool done tool=message call=call_note turn=T ok=true ms=N',
      ];
      assert.equal(toolLines(gatewayLog), expected);
      assert.equal(toolLines(extra), expected);

      writeFileSync(join(g.home.workspace, 'HEARTBEAT.md'), '- NOTE heartbeat secret HBVALUE-4242\n');
      writeLastChannel(g.home.workspace, {
        channel: 'desk',
        account: 'default',
        chat: 'direct:42',
        reply_to: '42',
        at: '2026-11-22T00:00:00.000Z',
      });
      g.clock.advance(30 * 60_000);
      assert.is(await eventually(() => g.events.some((e) => e.type === 'heartbeat.ticked'), true), true);
      const heartbeatLog = join(g.home.workspace, 'heartbeat.log');
      assert.equal(toolLines(heartbeatLog), [
        'INFO tool call tool=message call=call_note turn=T arg_count=1 arg_keys=content',
        'INFO tool done tool=message call=call_note turn=T ok=true ms=N',
      ]);
      assert.equal(toolLines(gatewayLog), expected, "the heartbeat turn's call is not in gateway.log");
      for (const path of [gatewayLog, extra, heartbeatLog]) {
        assert.not.match(readText(path), 'PLAINVALUE');
        assert.not.match(readText(path), 'HBVALUE');
      }
    } finally {
      await g.close();
      rmSync(extra, { force: true });
    }
  },
);

test.run();
