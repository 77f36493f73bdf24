// The outbox sends a reply's next part only once the previous part's `message.sent` is in the log: a process killed
// between a send and its record can double at most the one part it was sending (recovery sends a part again when
// its record is missing; the platform has no key to refuse it twice).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Channel } from '../../adapters/channels/channel.js';
import { InProcessBus, memorySequencer, type Envelope, type Sequencer } from '../../bus/index.js';
import { ChannelDirectory } from '../../actors/gateway/channel-directory.js';
import { Outbox } from '../../actors/gateway/outbox.js';
import { Logger } from '../../store/logs/logger.js';
import { Redactor } from '../../store/config/index.js';

/** A log whose commits wait until released: what a log behind a network (a JetStream stream) does under load. */
function heldLog(): Sequencer & { release(): void } {
  const numbering = memorySequencer();
  let release!: () => void;
  let gate = new Promise<void>((resolve) => (release = resolve));
  return {
    stamp: (draft) => numbering.stamp(draft),
    committed: () => gate,
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

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

test('part 2 of a reply waits until part 1\'s message.sent is in the log, and reply.delivered until part 2\'s is', async () => {
  const log = heldLog();
  const bus = new InProcessBus(log);
  const sent: string[] = [];
  const directory = new ChannelDirectory();
  directory.add('tg', recordingChannel(sent));
  const outbox = new Outbox({ bus, logger: new Logger([], 'error', Redactor.none), directory, entry: () => undefined, now: Date.now });
  const events: Envelope[] = [];
  bus.matching('message.sent,reply.delivered').subscribe((e) => events.push(e));
  outbox.start();
  // Given a reply the channel's limit splits in two (line one, line two),
  bus.publish({ agent: 'main', session: 's1', turn: 't1', type: 'reply.requested', data: { message_id: 'm1', outcome: 'completed', text: `${'a'.repeat(20)}\n${'b'.repeat(20)}`, key: 'tg:m1:t1', reply: { channel: 'tg', chat: 'direct:1', reply_to: '1' } } });
  await settle();
  // when part 1 is out and recorded but its record is not yet in the log, then part 2 waits.
  assert.equal(sent, ['a'.repeat(20)]);
  assert.equal(events.map((e) => e.type), ['message.sent']);
  log.release();
  await settle();
  assert.equal(sent, ['a'.repeat(20), 'b'.repeat(20)]);
  assert.equal(events.map((e) => e.type), ['message.sent', 'message.sent']);
  log.release();
  await settle();
  assert.equal(events.map((e) => [e.type, e.type === 'message.sent' ? e.data.send_key : e.type === 'reply.delivered' ? e.data.parts : '']), [
    ['message.sent', 'tg:m1:t1:0'], ['message.sent', 'tg:m1:t1:1'], ['reply.delivered', 2],
  ]);
  outbox.stop();
  await outbox.settled();
});

test.run();
