import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { message, startTurnFixture } from '../support/turn-fixture.js';

test('a registered command the channel does not support answers an explicit error and stops', async () => {
  const fixture = await startTurnFixture();
  try {
    const reply = await fixture.runtime.ask({
      ...message('/show mcp files', 's1'),
      channel: 'slack',
      commands: ['help', 'clear'],
    });
    assert.equal(reply, { kind: 'command', text: '/show is not supported on slack (supported here: /help, /clear).' });
    const supported = await fixture.runtime.ask({ ...message('/clear', 's1'), commands: ['help', 'clear'] });
    assert.equal(supported, { kind: 'command', text: 'Conversation cleared.' });
    assert.is(fixture.vendor.requests.length, 0);
  } finally {
    await fixture.close();
  }
});

test.run();
