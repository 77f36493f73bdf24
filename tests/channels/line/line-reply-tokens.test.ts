// LINE's reply tokens: each answer goes out on the token of the message it answers, so a user who writes again
// before the answer gets both answers as replies (free), neither as a push (counted against the plan's quota).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { until } from '../../support/eventually.js';
import { startGatewayModel } from '../../support/gateway-model.js';
import { modelEntry, startGatewayProcess } from '../../support/gateway-process.js';
import { LineApi } from '../../support/line-api.js';
import { quietGateway } from '../../support/quiet.js';
import { freePort } from '../../support/telegram-emulator.js';

test('each answer uses the reply token of its own message, when the user wrote again before it', async () => {
  const model = await startGatewayModel();
  const line = await LineApi.start();
  const port = await freePort();
  line.attach(`http://127.0.0.1:${port}/webhooks/line/line`);
  const user = line.direct('user');
  const gateway = await startGatewayProcess({
    gateway: { host: '127.0.0.1', port },
    agents: { defaults: { model: 'fast' } },
    model_list: [modelEntry(model.url)],
    heartbeat: { enabled: false },
    channel_list: {
      line: { enabled: true, type: 'line', settings: { ...line.settings(), allow_from: [user.sender] } },
    },
  });
  try {
    const first = await user.say('HOLD first');
    await until('the model asked', () => (model.asked.includes('HOLD first') ? true : undefined), 60_000);
    // Answered by the gateway once the message is in its log.
    const second = await user.say('second');
    model.release();
    await until(
      'two answers',
      () => (line.texts.length >= 2 ? true : undefined),
      60_000,
      () => line.texts,
    );
    assert.equal(await quietGateway(gateway.home.sessions, () => line.texts), [
      { text: 'echo: HOLD first', replyToken: line.tokenOf.get(first.id) },
      { text: 'echo: second', replyToken: line.tokenOf.get(second.id) },
    ]);
  } finally {
    await gateway.stop();
    gateway.home.remove();
    await line.close();
    await model.close();
  }
});

test.run();
