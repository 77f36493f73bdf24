// A Mattermost 429 as its limiter sends it: the channel reports the wait the headers name, so the outbox waits it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ChannelError } from '../../../adapters/channels/channel.js';
import { MattermostChannel } from '../../../adapters/channels/mattermost/mattermost.js';
import { MattermostServer } from '../../support/mattermost-server.js';

const limits = suite<{ mm: MattermostServer; channel: MattermostChannel }>('a Mattermost 429');

limits.before(async (context) => {
  context.mm = await MattermostServer.start();
  context.channel = new MattermostChannel({ serverUrl: context.mm.url, token: context.mm.token });
  await context.channel.start({ onMessage: () => {}, onConnected: () => {}, onFailed: () => {} });
});

limits.after(async ({ mm, channel }) => {
  await channel?.stop();
  await mm?.close();
});

const refusal = (error: unknown) => {
  assert.instance(error, ChannelError);
  const { code, failure } = error as ChannelError;
  return { code, failure };
};

limits('Retry-After names the wait', async ({ mm, channel }) => {
  mm.rateLimitPosts(1, 3);
  const error = await channel.send('chan1', 'hi').catch((e: unknown) => e);
  assert.equal(refusal(error), { code: 'rate_limited', failure: { delivered: 'no', retry: true, retryAfterMs: 3000 } });
});

limits('without Retry-After, X-Ratelimit-Reset names it; the next post goes through', async ({ mm, channel }) => {
  mm.rateLimitPosts(1, 2, 'reset');
  const error = await channel.send('chan1', 'hi').catch((e: unknown) => e);
  assert.equal(refusal(error), { code: 'rate_limited', failure: { delivered: 'no', retry: true, retryAfterMs: 2000 } });
  await channel.send('chan1', 'again');
  assert.equal(
    mm.botPosts('chan1').map((p) => p.message),
    ['again'],
  );
});

limits.run();
