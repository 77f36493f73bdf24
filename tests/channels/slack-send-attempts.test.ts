// A Slack send is tried as the channel's `send_attempts` say, as on every channel: the Web API client tries each call
// once and hands a 429 on with its Retry-After, and the outbox decides whether to try again. The client's own retries
// (10 over about 30 minutes) used to hide every refusal from it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { NOT_DELIVERED_NOTICE } from '../../actors/gateway/outbox.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { modelEntry, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { quietGateway } from '../support/quiet.js';
import { SlackApi } from '../support/slack-api.js';
import { freePort } from '../support/telegram-emulator.js';
import { sentAtLeast } from './contract/kit.js';

interface Context {
  model?: GatewayModel;
  slack?: SlackApi;
  gateway?: GatewayProcess;
}

const test = suite<Context>('slack: send_attempts');

test.after(async (context) => {
  await context.gateway?.stop();
  await context.slack?.close();
  await context.model?.close();
  context.gateway?.home.remove();
});

test(
  'a part Slack refuses with 429 at each of send_attempts tries is given up, ' + 'and the chat is told',
  async (context) => {
    context.model = await startGatewayModel();
    const slack = await SlackApi.start();
    context.slack = slack;
    const chat = slack.direct('user1');
    context.gateway = await startGatewayProcess({
      gateway: { host: '127.0.0.1', port: await freePort() },
      agents: { defaults: { model: 'fast' } },
      model_list: [modelEntry(context.model.url)],
      heartbeat: { enabled: false },
      channel_list: {
        slack: { enabled: true, settings: { ...slack.settings(), allow_from: [chat.sender], send_attempts: 2 } },
      },
    });
    slack.rateLimitSends(2, 1);
    await chat.say('refused twice');
    await sentAtLeast(chat, 1);
    const shown = await quietGateway(context.gateway.home.sessions, () => chat.sent().map((m) => m.text));
    assert.equal(shown, [NOT_DELIVERED_NOTICE]);
    assert.is(slack.rateLimited().length, 2, 'two tries, each answered 429');
  },
);

test.run();
