// The outbox records `message.sending` and waits until it is in the log before a part reaches its channel: a process
// killed between the send and its `message.sent` leaves a part the restart does not send again (the platform has no
// key to refuse it twice). The log keeps one order, so a chat's next part also waits for the previous part's record.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Channel } from '../../adapters/channels/channel.js';
import { InProcessBus, memorySequencer, type Envelope, type Sequencer } from '../../bus/index.js';
import { ChannelDirectory } from '../../actors/gateway/channel-directory.js';
import { Outbox } from '../../actors/gateway/outbox.js';
import { Logger } from '../../store/logs/logger.js';
import { Redactor } from '../../store/config/index.js';
import { eventually } from '../support/eventually.js';

/**
 * A log whose commits wait until released: what a log behind a network (a JetStream stream) does under load.
 * `waiting` says how many callers wait for the commits now: then nothing moves until the test releases them.
 */
function heldLog(): Sequencer & { release(): void; readonly waiting: number } {
  const numbering = memorySequencer();
  let release!: () => void;
  let gate = new Promise<void>((resolve) => (release = resolve));
  let waiting = 0;
  return {
    stamp: (draft) => numbering.stamp(draft),
    committed: () => {
      waiting++;
      return gate.finally(() => waiting--);
    },
    get waiting() {
      return waiting;
    },
    release: () => {
      release();
      gate = new Promise<void>((resolve) => (release = resolve));
    },
  };
}

function recordingChannel(sent: string[]): Channel {
  return {
    kind: 'telegram',
    capabilities: { commands: [], streaming: false, maxMessageLength: 40 },
    start: async () => {},
    stop: async () => {},
    send: async (_replyTo, text) => {
      sent.push(text);
      return String(sent.length);
    },
    edit: async () => {},
    typing: async () => {},
  };
}

test(
  'each part goes out only once its message.sending is in the log, ' +
    "and part 2 only once part 1's message.sent is too",
  async () => {
    const log = heldLog();
    const bus = new InProcessBus(log);
    const sent: string[] = [];
    const directory = new ChannelDirectory();
    directory.add('tg', recordingChannel(sent));
    const outbox = new Outbox({
      bus,
      logger: new Logger([], 'error', Redactor.none),
      directory,
      entry: () => undefined,
      now: Date.now,
    });
    const events: Envelope[] = [];
    bus.matching('message.sending,message.sent,reply.delivered').subscribe((e) => events.push(e));
    const seen = (): string[] =>
      events.map(
        (e) => `${e.type} ${e.type === 'reply.delivered' ? e.data.parts : (e.data as { send_key: string }).send_key}`,
      );
    outbox.start();
    // Given a reply the channel's limit splits in two (line one, line two),
    bus.publish({
      agent: 'main',
      session: 's1',
      turn: 't1',
      type: 'reply.requested',
      data: {
        message_id: 'm1',
        outcome: 'completed',
        text: `${'a'.repeat(20)}\n${'b'.repeat(20)}`,
        key: 'tg:m1:t1',
        reply: { channel: 'tg', chat: 'direct:1', reply_to: '1' },
      },
    });
    await eventually(() => log.waiting > 0, true);
    // when the intent to send part 1 is not yet in the log, then nothing is sent;
    assert.equal(sent, []);
    assert.equal(seen(), ['message.sending tg:m1:t1:0']);
    log.release();
    await eventually(() => events.length === 3 && log.waiting > 0, true);
    // once it is, part 1 goes out and is recorded, and part 2 waits for its own intent, which comes after that record.
    assert.equal(sent, ['a'.repeat(20)]);
    assert.equal(seen(), ['message.sending tg:m1:t1:0', 'message.sent tg:m1:t1:0', 'message.sending tg:m1:t1:1']);
    log.release();
    await eventually(() => events.at(-1)?.type, 'reply.delivered');
    assert.equal(sent, ['a'.repeat(20), 'b'.repeat(20)]);
    assert.equal(seen(), [
      'message.sending tg:m1:t1:0',
      'message.sent tg:m1:t1:0',
      'message.sending tg:m1:t1:1',
      'message.sent tg:m1:t1:1',
      'reply.delivered 2',
    ]);
    outbox.stop();
    await outbox.settled();
  },
);

test.run();
