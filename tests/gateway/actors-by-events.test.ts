// The gateway's actors driven through the bus: given events (in the log, on the bus) → when an event is published (or
// a channel reports a message) → then exactly these events.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Channel, ChannelHooks, ChannelMessage } from '../../adapters/channels/channel.js';
import { BoardInspector } from '../../actors/board.js';
import { ChannelActor } from '../../actors/gateway/channel-actor.js';
import { ChannelDirectory } from '../../actors/gateway/channel-directory.js';
import { Dispatcher } from '../../actors/gateway/dispatcher.js';
import { acceptInbound, pairingText } from '../../actors/gateway/inbound.js';
import { Outbox } from '../../actors/gateway/outbox.js';
import { RecentIds } from '../../actors/gateway/recent-ids.js';
import { clockOf, realScheduler } from '../../actors/scheduler.js';
import { sessionKeyOf } from '../../actors/wiring/session-key.js';
import { sessionIdOf, type EventDraft } from '../../bus/index.js';
import { channelBoard } from '../../machines/channel.js';
import { Redactor, validateConfig, type Config } from '../../store/config/index.js';
import { Logger } from '../../store/logs/logger.js';
import { given, movesOf, type Stage } from '../support/actor-kit.js';
import { eventually } from '../support/eventually.js';
import { tempHome, type TempHome } from '../support/temp-home.js';
import { PairingStore } from '../../store/pairing.js';

const logger = new Logger([], 'error', Redactor.none);

function config(): Config {
  const result = validateConfig({
    version: 2,
    channel_list: {
      tg: {
        enabled: true,
        type: 'telegram',
        settings: { token: '1:t', placeholder: '', typing: true, allow_from: ['@ann'] },
      },
    },
  });
  if (!result.ok) throw new Error(result.problems.join('; '));
  return result.config;
}

/**
 * A channel on the other side of which is the test: what it was asked to send, and a typing indicator that may fail.
 */
class TestChannel implements Channel {
  readonly kind = 'telegram';
  readonly capabilities = { commands: ['stop', 'help'] as const, streaming: false, maxMessageLength: 40 };
  hooks: ChannelHooks | undefined;
  readonly sent: string[] = [];
  stops = 0;
  typings = 0;
  constructor(private readonly typingFails = false) {}
  async start(hooks: ChannelHooks): Promise<void> {
    this.hooks = hooks;
    hooks.onConnected();
  }
  async stop(): Promise<void> {
    this.stops++;
  }
  async send(replyTo: string, text: string): Promise<string> {
    this.sent.push(`${replyTo}: ${text}`);
    return `out${this.sent.length}`;
  }
  async edit(): Promise<void> {}
  typing(): Promise<void> {
    this.typings++;
    return this.typingFails ? Promise.reject(new Error('Bad Request: chat not found')) : Promise.resolve();
  }
}

const inbound = (id: string, text: string): ChannelMessage => ({
  messageId: id,
  chat: 'direct:42',
  replyTo: '42',
  sender: '42',
  senderAliases: ['42', '@ann'],
  text,
  mentioned: false,
});

/** The actor keeps its pairing codes and last chat in `home`, which the test removes once the actor stopped. */
function channelActor(
  stage: Stage,
  channel: TestChannel,
  home: TempHome,
  directory = new ChannelDirectory(),
): ChannelActor {
  const actor = new ChannelActor({ name: 'tg', kind: 'telegram', account: 'default' }, async () => channel, {
    bus: stage.bus,
    logger,
    clock: clockOf(realScheduler),
    backoff: { baseMs: 100, maxMs: 1000 },
    directory,
    inspect: new BoardInspector(stage.bus, { channel: channelBoard }).inspect,
    accept: acceptInbound({
      bus: stage.bus,
      logger,
      config,
      workspace: home.workspace,
      now: () => Date.parse('2026-05-01T10:00:00Z'),
      seen: new RecentIds(100),
      pairing: new PairingStore(home.home),
    }),
  });
  actor.start();
  return actor;
}

/** Resolves once the channel actor has published that its channel connected. */
const connected = (stage: Stage) => eventually(() => stage.published.some((e) => e.type === 'channel.connected'), true);
/** A turn of the event loop: a rejection nobody handled is reported before it ends. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

const channel = suite('channel actor');

channel(
  'when its channel reports a message for the bot, ' +
    'then message.received, exactly; a redelivery of it publishes nothing',
  async () => {
    const stage = given();
    const link = new TestChannel();
    const home = tempHome();
    const actor = channelActor(stage, link, home);
    await connected(stage);
    await link.hooks!.onMessage(inbound('7', 'hello'));
    await link.hooks!.onMessage(inbound('7', 'hello'));
    assert.equal(stage.then('channel.connected', 'message.received'), [
      ['channel.connected', { channel: 'tg', account: 'default' }],
      [
        'message.received',
        {
          channel: 'tg',
          kind: 'telegram',
          account: 'default',
          message_id: '7',
          chat: 'direct:42',
          reply_to: '42',
          sender: '42',
          sender_aliases: ['42', '@ann'],
          text: 'hello',
          space: undefined,
          topic: undefined,
          mentioned: false,
          commands: ['stop', 'help'],
          media: [],
        },
      ],
    ]);
    await actor.stop();
    home.remove();
  },
);

channel(
  'when a sender allow_from does not list writes in a direct chat, ' +
    'then a pairing code and no turn; writing again, nothing',
  async () => {
    const stage = given();
    const link = new TestChannel();
    const home = tempHome();
    const actor = channelActor(stage, link, home);
    await connected(stage);
    const stranger = (id: string): ChannelMessage => ({
      ...inbound(id, 'let me in'),
      chat: 'direct:77',
      replyTo: '77',
      sender: '77',
      senderAliases: ['77', '@eve'],
    });
    await link.hooks!.onMessage(stranger('8'));
    await link.hooks!.onMessage(stranger('9'));
    const [request] = new PairingStore(home.home).pending(Date.parse('2026-05-01T10:00:00Z'));
    const code = request?.code ?? '';
    assert.match(code, /^[A-HJ-NP-Z2-9]{8}$/);
    assert.equal(stage.then('message.received', 'pairing.requested', 'reply.requested'), [
      [
        'pairing.requested',
        {
          channel: 'tg',
          account: 'default',
          sender: '77',
          sender_aliases: ['77', '@eve'],
          chat: 'direct:77',
          code,
          expires_at: '2026-05-01T11:00:00.000Z',
        },
      ],
      [
        'reply.requested',
        {
          message_id: '8',
          outcome: 'message',
          text: pairingText(code),
          key: 'tg:8:pairing',
          reply: { channel: 'tg', chat: 'direct:77', reply_to: '77' },
        },
      ],
    ]);
    assert.is(
      pairingText(code),
      `Pairing code: ${code}\nThis bot answers only the people its owner lets in: ` +
        `ask the owner to run "tern pairing approve ${code}" within the hour.`,
    );
    await actor.stop();
    home.remove();
  },
);

channel(
  'when it is stopped twice (at once and again later), ' +
    'then it moves to stopped and leaves the board once, and its channel stops once',
  async () => {
    const stage = given();
    const link = new TestChannel();
    const home = tempHome();
    const actor = channelActor(stage, link, home);
    await connected(stage);
    await Promise.all([actor.stop(), actor.stop()]);
    await actor.stop();
    home.remove();
    assert.equal(movesOf(stage.published, 'channel:tg'), [
      '->stopped xstate.init',
      'stopped->starting START',
      'starting->connected CONNECTED',
      'connected->stopped STOP',
    ]);
    assert.equal(stage.then('actor.stopped'), [
      ['actor.stopped', { actor: 'channel:tg', machine: 'channel', reason: 'stopped' }],
    ]);
    assert.is(link.stops, 1);
  },
);

channel.run();

const dispatcher = suite('dispatcher actor');

const received = (id: string, text: string): EventDraft<'message.received'> => ({
  type: 'message.received',
  data: {
    channel: 'tg',
    kind: 'telegram',
    account: 'default',
    message_id: id,
    chat: 'direct:42',
    reply_to: '42',
    sender: '42',
    text,
    commands: ['stop', 'help'],
    media: [],
  },
});
const key = sessionKeyOf({
  agent: 'main',
  channel: 'telegram',
  account: 'default',
  dimensions: [['chat', 'direct:42']],
});
const routing = { agent: 'main', session: sessionIdOf(key) };

dispatcher(
  'given a message received before it started, when it starts and a /stop is received, ' +
    'then the message is routed to its session and the /stop is control for it',
  () => {
    const stage = given();
    stage.when(received('1', 'hello'));
    const actor = new Dispatcher({ bus: stage.bus, logger, config });
    actor.start();
    stage.when(received('2', '/stop'));
    const routed = stage.published
      .filter((e) => e.type === 'message.routed' || e.type === 'turn.stop.requested')
      .map((e) => [e.type, e.agent, e.session, e.data]);
    assert.equal(routed, [
      [
        'message.routed',
        routing.agent,
        routing.session,
        {
          session_key: key,
          message_id: '1',
          channel: 'telegram',
          account: 'default',
          chat: 'direct:42',
          sender: '42',
          text: 'hello',
          remote: true,
          reply: { channel: 'tg', chat: 'direct:42', reply_to: '42' },
          commands: ['stop', 'help'],
          media: [],
        },
      ],
      [
        'turn.stop.requested',
        routing.agent,
        routing.session,
        { message_id: '2', reply: { channel: 'tg', chat: 'direct:42', reply_to: '42' } },
      ],
    ]);
    actor.stop();
  },
);

dispatcher.run();

const outbox = suite('outbox actor');

function startOutbox(stage: Stage, link: TestChannel, sent: string[] = []): Outbox {
  const directory = new ChannelDirectory();
  directory.add('tg', link);
  const actor = new Outbox({
    bus: stage.bus,
    logger,
    directory,
    entry: (name) => config().channel_list[name],
    now: () => 0,
    sent,
  });
  actor.start();
  return actor;
}

const reply = { channel: 'tg', chat: 'direct:42', reply_to: '42' };
const routedMessage = (id: string): EventDraft<'message.routed'> => ({
  ...routing,
  type: 'message.routed',
  data: {
    session_key: key,
    message_id: id,
    channel: 'telegram',
    account: 'default',
    chat: 'direct:42',
    sender: '42',
    text: 'hi',
    remote: true,
    reply,
    media: [],
  },
});

outbox(
  'when a reply is requested, then each part is sent under its key and recorded, ' +
    'and the reply is delivered; a part sent before a restart is not sent again',
  async () => {
    const stage = given();
    const link = new TestChannel();
    const actor = startOutbox(stage, link, ['tg:1:t1:0']);
    stage.when({
      ...routing,
      turn: 't1',
      type: 'reply.requested',
      data: {
        message_id: '1',
        outcome: 'completed',
        text: 'this is the first part.\nthis is the second part.',
        key: 'tg:1:t1',
        reply,
      },
    });
    await actor.settled();
    assert.equal(link.sent, ['42: this is the second part.']);
    assert.equal(stage.then('message.sent', 'reply.delivered'), [
      [
        'message.sent',
        {
          channel: 'tg',
          chat: 'direct:42',
          text: 'this is the second part.',
          send_key: 'tg:1:t1:1',
          part: 1,
          message_id: 'out1',
          media: [],
        },
      ],
      ['reply.delivered', { message_id: '1', key: 'tg:1:t1', parts: 2, failed: false }],
    ]);
    actor.stop();
  },
);

outbox(
  'when a message is routed to a chat whose typing indicator fails, ' +
    'then nothing is rejected unhandled and its reply still goes out',
  async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const stage = given();
      const link = new TestChannel(true);
      const actor = startOutbox(stage, link);
      stage.when(routedMessage('5'));
      await eventually(() => link.typings, 1);
      stage.when({
        ...routing,
        turn: 't5',
        type: 'reply.requested',
        data: { message_id: '5', outcome: 'completed', text: 'answer', key: 'tg:5:t5', reply },
      });
      await actor.settled();
      await nextTurn();
      assert.equal(
        unhandled.map((e) => (e as Error).message),
        [],
      );
      assert.equal(link.sent, ['42: answer']);
      assert.equal(stage.then('reply.delivered'), [
        ['reply.delivered', { message_id: '5', key: 'tg:5:t5', parts: 1, failed: false }],
      ]);
      actor.stop();
    } finally {
      process.off('unhandledRejection', record);
    }
  },
);

outbox.run();
