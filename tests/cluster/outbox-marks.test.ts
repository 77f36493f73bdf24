// A reply part the channel says the platform certainly did not take (a keep-alive connection closed unread, #40's
// failover loop) is unmarked in the cluster's send marks before its next try: kept, the member taking the account over
// would take the part as maybe sent and never send it, if this member lost the account before trying again.
// A real nats-server and `SendMarks`, the outbox on an in-process bus.
import * as assert from 'uvu/assert';
import { Kvm } from '@nats-io/kv';
import { ChannelError, type Channel } from '../../adapters/channels/channel.js';
import { ChannelDirectory } from '../../actors/gateway/channel-directory.js';
import { Outbox } from '../../actors/gateway/outbox.js';
import { InProcessBus, memorySequencer, validateDraft } from '../../bus/index.js';
import { connectCluster } from '../../store/cluster/connection.js';
import { LeftMarks } from '../../store/cluster/left-marks.js';
import { SEND_MARKS_BUCKET, SendMarks } from '../../store/cluster/send-marks.js';
import { accountLog } from '../../store/cluster/stream-names.js';
import { Redactor, type ChannelEntry } from '../../store/config/index.js';
import { JetStreamEventStore } from '../../store/log/jetstream-store.js';
import { Logger } from '../../store/logs/logger.js';
import { until } from '../support/eventually.js';
import { natsSuite } from '../support/nats-server.js';

const { test, suite } = natsSuite('the send marks of a part the platform did not take');

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');

test('a try the channel says was not taken leaves no mark while the part waits for its next try', async ({
  server,
}) => {
  const nc = await connectCluster(server.url);
  const account = 'tg-untaken';
  const log = await JetStreamEventStore.open(nc, { ...accountLog(account), gateway: 'gw-a' });
  const marks = await SendMarks.open(nc, account, log, { id: 'gw-a', marks: LeftMarks.start(nc, 'gw-a') }, () => true);
  const kv = await new Kvm(nc).open(SEND_MARKS_BUCKET);
  let tries = 0;
  const channel: Channel = {
    kind: 'telegram',
    capabilities: { commands: [], streaming: false, maxMessageLength: 4096 },
    start: async () => {},
    stop: async () => {},
    send: async () => {
      tries++;
      throw new ChannelError('network', 'other side closed', { delivered: 'no', retry: true });
    },
    edit: async () => {},
    typing: async () => {},
  };
  const directory = new ChannelDirectory();
  directory.add(account, channel);
  const bus = new InProcessBus(memorySequencer());
  // The next try comes a minute later: the test looks at the marks meanwhile.
  const entry = { enabled: true, type: 'telegram', settings: { send_backoff_ms: 60_000 } } as unknown as ChannelEntry;
  const outbox = new Outbox({
    bus,
    logger: new Logger([], 'error', Redactor.none),
    directory,
    entry: () => entry,
    now: Date.now,
    journal: marks,
  });
  outbox.start();
  try {
    bus.publish(
      validateDraft({
        agent: 'main',
        session: 's1',
        turn: 't1',
        type: 'reply.requested',
        data: {
          message_id: 'm1',
          outcome: 'completed',
          text: 'hello',
          key: 'k1',
          reply: { channel: account, chat: 'direct:1', reply_to: '1' },
        },
      }),
    );
    await until('the first try', () => (tries === 1 ? true : undefined), 10_000);
    const mark = async () => (await kv.get(`${b64(account)}.${b64('k1:0')}`))?.operation ?? 'none';
    const unmarked = async () => ((await mark()) === 'PUT' ? undefined : true);
    await until('the mark to be taken back', unmarked, 10_000, mark);
    assert.is(tries, 1);
  } finally {
    outbox.stop();
    marks.close();
    log.close();
    await nc.close();
  }
});

suite.run();
