// The peer's `events.logging`: chosen bus events as gateway.log lines at their severity (docs/configuration.md).
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startClockedGateway, logLines } from '../support/clocked-gateway.js';
import { eventually } from '../support/eventually.js';

const eventLines = (path: string): string[] =>
  logLines(path)
    .filter((line) => line.includes(' runtime event: '))
    .map((line) => line.replace(/event_id=\d+/, 'event_id=N').replace(/(turn_id|session_key)=\S+/g, '$1=X'));

test('events.logging writes the events include chooses, less exclude, at or above min_severity', async () => {
  const g = await startClockedGateway({
    events: {
      logging: {
        enabled: true,
        include: ['agent.tool.*', 'turn.*'],
        exclude: ['turn.started'],
        min_severity: 'info',
        include_payload: true,
      },
    },
  });
  try {
    g.say('NOTE the door code is PLAINVALUE-7731');
    assert.is(await eventually(() => g.sent.length, 2), 2);
    const path = join(g.home.home, 'logs', 'gateway.log');
    await eventually(() => eventLines(path).some((l) => l.includes('turn.completed')), true);
    const scope = 'agent_id=main session_key=X turn_id=X';
    assert.equal(eventLines(path), [
      `INFO runtime event: tool.requested event_id=N event_kind=tool.requested severity=info ${scope} payload=` +
        String.raw`"{\"call_id\":\"call_note\",\"name\":\"message\",` +
        String.raw`\"arguments\":{\"content\":\"the door code is PLAINVALUE-7731\"}}"`,
      `INFO runtime event: tool.completed event_id=N event_kind=tool.completed severity=info ${scope} payload=` +
        String.raw`"{\"call_id\":\"call_note\",\"name\":\"message\",\"ok\":true,` +
        String.raw`\"content\":\"message sent to desk:direct:42\"}"`,
      `INFO runtime event: turn.completed event_id=N event_kind=turn.completed severity=info ${scope} payload=` +
        String.raw`"{\"reply\":\"noted\",\"iterations\":2}"`,
    ]);
  } finally {
    await g.close();
  }
});

test('min_severity warn: of all events only the failed tool call is written, at WARN', async () => {
  const g = await startClockedGateway({
    gateway: { log_level: 'info' },
    events: { logging: { enabled: true, include: ['*'], min_severity: 'warn' } },
  });
  try {
    g.say('FILE missing.png');
    assert.is(await eventually(() => g.sent.length, 1), 1);
    const path = join(g.home.home, 'logs', 'gateway.log');
    await eventually(() => g.events.some((e) => e.type === 'turn.completed'), true);
    assert.equal(eventLines(path), [
      'WARN runtime event: tool.completed event_id=N event_kind=tool.completed severity=warn ' +
        'agent_id=main session_key=X turn_id=X',
    ]);
  } finally {
    await g.close();
  }
});

test.run();
