// The channel contract: what every channel does, checked through a real `tern gateway` process against a loopback
// emulator of the channel's platform. A channel's test file calls `channelContract` with its kind and emulator; parts
// the platform lacks are declared in `lacks` and skipped by name with the reason (docs/channels/README.md).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite, type Test } from 'uvu';
import * as assert from 'uvu/assert';
import { splitMessage } from '../../../adapters/channels/split.js';
import { LONG_REPLY, startGatewayModel, TRANSCRIPT, type GatewayModel } from '../../support/gateway-model.js';
import { modelEntry, startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.js';
import { freePort } from '../../support/telegram-emulator.js';
import { quietGateway, quietValue } from '../../support/quiet.js';
import type { TempHome } from '../../support/temp-home.js';
import type { ChannelContract, ContractEmulator, ContractFeature, Conversation, SentMessage } from './emulator.js';

export type { ChannelContract, ContractEmulator, Conversation, SentMessage } from './emulator.js';

interface Context {
  model: GatewayModel;
  emulator: ContractEmulator;
  gateway: GatewayProcess;
  home: TempHome;
  config: Record<string, unknown>;
}

/** A gateway compiles its sources as it starts: on a machine shared by several test runs that takes a while. */
const READY_MS = 60_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for `count` messages in the conversation (60 s: a gateway compiles its sources on a loaded machine). */
export async function sentAtLeast(
  conversation: Conversation,
  count: number,
  timeoutMs = 60_000,
): Promise<SentMessage[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const sent = conversation.sent();
    if (sent.length >= count) return sent;
    if (Date.now() > deadline)
      throw new Error(
        `expected ${count} messages from the bot, got ${JSON.stringify(sent.map((m) => m.text.slice(0, 80)))}`,
      );
    await sleep(25);
  }
}

/** Waits until the conversation's last message reads `text` (a streamed or placeholder message is edited into it). */
async function lastReads(conversation: Conversation, text: string, timeoutMs = 60_000): Promise<SentMessage[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const sent = conversation.sent();
    if (sent.at(-1)?.text === text) return sent;
    if (Date.now() > deadline)
      throw new Error(
        `expected the last message to read ${JSON.stringify(text)}, got ${JSON.stringify(sent.map((m) => m.text))}`,
      );
    await sleep(25);
  }
}

/**
 * Waits until the gateway has stopped working: neither its event log nor these chats changed for half a second. A
 * second reply on its way arrives first, however slow the machine; a fast machine does not wait a fixed time.
 */
async function settled(home: TempHome, ...chats: Conversation[]): Promise<void> {
  await quietGateway(home.sessions, () => chats.map((chat) => chat.sent().map((m) => [m.text, m.edits.length])));
}

const texts = (sent: SentMessage[]): string[] => sent.map((m) => m.text);

function gatewayConfig(
  contract: ChannelContract,
  context: Context,
  port: number,
  extra: Record<string, unknown>,
  streaming = false,
): Record<string, unknown> {
  return {
    gateway: { host: '127.0.0.1', port, log_level: 'debug' },
    agents: { defaults: { model: 'fast', transcription_model: 'fast' } },
    model_list: [modelEntry(context.model.url, streaming)],
    heartbeat: { enabled: false },
    channel_list: {
      [contract.kind]: {
        enabled: true,
        type: contract.kind,
        settings: { ...context.emulator.settings(), restart_backoff_ms: 100, ...extra },
      },
    },
  };
}

/**
 * Registers and runs the contract suites for one channel: a gateway with the channel as most users run it, killed in
 * the middle of a send, then started again with streaming on.
 */
export function channelContract(contract: ChannelContract): void {
  const lacks = contract.lacks ?? {};
  const measure = contract.measure ?? ((text: string) => text.length);
  const name = contract.kind;
  const allowed = new Set<string>();
  /** Direct chats and threads with users `allow_from` lists: made before the gateway starts, one per test. */
  const pool: Conversation[] = [];
  const threads: Conversation[] = [];
  const user = (_emulator: ContractEmulator): Conversation => {
    const next = pool.shift();
    if (!next) throw new Error('the kit ran out of prepared users');
    return next;
  };

  const plain = suite<Context>(`${name} channel contract`);
  /** `test` unless the platform lacks `feature`, then a skip that names the reason. */
  const feature = (
    test: Test<Context>,
    what: ContractFeature,
    title: string,
    run: (context: Context) => Promise<void>,
  ): void => {
    const reason = lacks[what];
    if (reason) test.skip(`${title} [skipped: ${name} lacks ${what}: ${reason}]`, run);
    else test(title, run);
  };

  plain.before(async (context) => {
    context.model = await startGatewayModel();
    context.emulator = await contract.emulator();
    const port = await freePort();
    context.emulator.attach?.(`http://127.0.0.1:${port}/webhooks/${name}/${name}`);
    // The users the kit will talk as: created now so `allow_from` can list them.
    pool.push(...Array.from({ length: 20 }, (_, i) => context.emulator.direct(`user${i + 1}`)));
    if (context.emulator.thread && !lacks.threads) threads.push(context.emulator.thread('threaduser'));
    for (const c of [...pool, ...threads]) allowed.add(c.sender);
    context.config = gatewayConfig(contract, context, port, { allow_from: [...allowed] });
    // uvu says nothing of a failed hook: the reason is printed here.
    context.gateway = await startGatewayProcess(context.config, {}, undefined, READY_MS).catch((error: Error) => {
      console.error(`${name}: the gateway did not start: ${error.message}`);
      throw error;
    });
    context.home = context.gateway.home;
  });

  plain.after(async (context) => {
    if (context.gateway?.child.exitCode === null) await context.gateway.stop();
    const logs = [context.gateway?.stderr() ?? '', readLogs(context.home)].join('\n');
    await context.emulator?.close();
    await context.model?.close();
    context.home?.remove();
    for (const secret of context.emulator?.secrets() ?? [])
      assert.not.ok(logs.includes(secret), `a secret of ${name} is in the gateway's logs`);
  });

  plain('a direct message gets exactly one reply', async ({ emulator, home }) => {
    const chat = user(emulator);
    await chat.say('hello there');
    await sentAtLeast(chat, 1);
    await settled(home, chat);
    assert.equal(texts(chat.sent()), ['echo: hello there']);
  });

  feature(plain, 'threads', 'a message in a thread is answered in that thread', async ({ emulator, home }) => {
    void emulator;
    const thread = threads.shift()!;
    await thread.say('in a thread');
    await sentAtLeast(thread, 1);
    await settled(home, thread);
    assert.equal(texts(thread.sent()), ['echo: in a thread']);
  });

  feature(
    plain,
    'media',
    'a picture is saved in the workspace and named in the turn with its caption',
    async ({ emulator, home }) => {
      const chat = user(emulator);
      const bytes = Buffer.from('\x89PNG contract picture');
      // A platform without captions sends the picture alone.
      await chat.sendImage(bytes, lacks.captions ? '' : 'what is this');
      const [reply] = await sentAtLeast(chat, 1);
      const said = lacks.captions ? '' : 'what is this\n';
      const match = new RegExp(`^echo: ${said}\\[image: (media/inbound/[^\\]]+)\\]$`).exec(reply!.text);
      assert.ok(match, `the reply names the saved picture: ${JSON.stringify(reply!.text)}`);
      assert.equal(readFileSync(join(home.workspace, match![1]!)), bytes);
    },
  );

  feature(plain, 'voice', 'a voice message is transcribed before the turn', async ({ emulator, home }) => {
    const chat = user(emulator);
    await chat.sendVoice(Buffer.from('OggS contract voice'));
    const [reply] = await sentAtLeast(chat, 1);
    assert.is(reply!.text, `echo: [voice message] ${TRANSCRIPT}`);
    const saved = readdirSync(join(home.workspace, 'media', 'inbound')).map((f) =>
      readFileSync(join(home.workspace, 'media', 'inbound', f), 'utf8'),
    );
    assert.ok(saved.includes('OggS contract voice'), 'the recording is saved in the workspace');
  });

  plain(
    `a long reply is split at ${contract.maxMessageLength} characters, every code block closed in its part`,
    async ({ emulator, home }) => {
      const chat = user(emulator);
      await chat.say('LONG answer please');
      const expectedParts = splitMessage(LONG_REPLY, contract.maxMessageLength).length;
      await sentAtLeast(chat, expectedParts);
      await settled(home, chat);
      const parts = texts(chat.sent());
      assert.is(parts.length, expectedParts);
      for (const part of parts) {
        const length = measure(part);
        assert.ok(length <= contract.maxMessageLength, `a part has ${length} characters`);
        const fences = (part.match(/^```/gm) ?? []).length;
        assert.ok(
          fences % 2 === 0 && (part.match(/<pre>/g) ?? []).length === (part.match(/<\/pre>/g) ?? []).length,
          'every part closes its code',
        );
      }
      const code = (all: string): string[] => all.match(/const line\d+ = \d+;/g) ?? [];
      assert.equal(code(parts.join('\n')), code(LONG_REPLY));
    },
  );

  const prose = Array.from(
    { length: Math.ceil((contract.maxMessageLength * 1.5) / 30) },
    (_, i) => `word${i} lorem ipsum dolor`,
  ).join(' ');
  const proseTitle = 'a long paragraph is split between words, never inside one';
  plain(proseTitle, async ({ emulator, home }) => {
    const chat = user(emulator);
    await chat.say(prose);
    await sentAtLeast(chat, 2);
    await settled(home, chat);
    const parts = texts(chat.sent());
    for (const part of parts)
      assert.ok(measure(part) <= contract.maxMessageLength, `a part has ${measure(part)} characters`);
    assert.equal(parts.join(' ').split(/\s+/), `echo: ${prose}`.split(/\s+/));
  });

  feature(plain, 'formatting', 'Markdown in a reply reaches the platform in its own dialect', async ({ emulator }) => {
    const chat = user(emulator);
    await chat.say('**bold** and `code`');
    const [reply] = await sentAtLeast(chat, 1);
    assert.is(reply!.text, contract.formatted);
  });

  feature(
    plain,
    'format_fallback',
    'a reply whose formatting the platform refuses goes out once as plain text',
    async ({ emulator, home }) => {
      const chat = user(emulator);
      emulator.rejectNextFormat!();
      await chat.say('**bold** and `code`');
      await sentAtLeast(chat, 1);
      await settled(home, chat);
      assert.equal(texts(chat.sent()), [contract.plain]);
    },
  );

  const captionTitle = lacks.file_captions
    ? `a file the agent sends is uploaded, its caption next to it [${name} lacks file_captions: ${lacks.file_captions}]`
    : 'a file the agent sends is uploaded with its caption';
  feature(plain, 'upload', captionTitle, async ({ emulator, home }) => {
    const chat = user(emulator);
    writeFileSync(join(home.workspace, 'report.txt'), 'contract report body');
    await chat.say('FILE report.txt the weekly report');
    // The file and the closing 'sent', with the caption between them where a file carries no text.
    const sent = await sentAtLeast(chat, lacks.file_captions ? 3 : 2);
    const upload = sent.find((m) => m.file);
    assert.ok(upload, `a message carries the file: ${JSON.stringify(texts(sent))}`);
    assert.is(upload!.file!.name, 'report.txt');
    assert.is(upload!.file!.bytes.toString('utf8'), 'contract report body');
    // Where the file carries no text, its caption is the message just after it (Feishu) or just before (WeCom).
    const at = sent.indexOf(upload!);
    const beside = [sent[at + 1]?.text, sent[at - 1]?.text];
    const caption = lacks.file_captions ? beside.find((text) => text === 'the weekly report') : upload!.file!.caption;
    assert.is(caption, 'the weekly report', `the caption is beside the file: ${JSON.stringify(texts(sent))}`);
    assert.is(sent.at(-1)!.text, 'sent', JSON.stringify(texts(sent)));
  });

  feature(plain, 'typing', 'the bot shows it is typing while a turn runs', async ({ emulator }) => {
    const chat = user(emulator);
    await chat.say('are you typing');
    await sentAtLeast(chat, 1);
    assert.ok(chat.typing() >= 1, 'typing was shown');
  });

  plain('a sender allow_from does not list gets no turn', async ({ emulator, model, home }) => {
    const stranger = emulator.direct('stranger');
    await stranger.say('let me in please');
    const friend = user(emulator);
    await friend.say('after the stranger');
    await sentAtLeast(friend, 1);
    await settled(home, stranger, friend);
    assert.not.ok(
      model.asked.some((text) => text.includes('let me in please')),
      'the model never saw the stranger',
    );
    assert.not.ok(
      stranger.sent().some((m) => m.text.includes('let me in please')),
      'the stranger got no answer',
    );
  });

  feature(plain, 'redelivery', 'a redelivered message gets no second reply', async ({ emulator, home }) => {
    const chat = user(emulator);
    const first = await chat.say('only once');
    await sentAtLeast(chat, 1);
    await chat.redeliver(first);
    await chat.say('after the redelivery');
    await sentAtLeast(chat, 2);
    await settled(home, chat);
    assert.equal(texts(chat.sent()), ['echo: only once', 'echo: after the redelivery']);
  });

  feature(
    plain,
    'rate_limit',
    "a 429 is honoured: the reply goes out once, after the platform's retry_after",
    async ({ emulator, home }) => {
      const chat = user(emulator);
      emulator.rateLimitSends(1, 2);
      const before = emulator.rateLimited().length;
      await chat.say('through the rate limit');
      const [reply] = await sentAtLeast(chat, 1);
      await settled(home, chat);
      assert.equal(texts(chat.sent()), ['echo: through the rate limit']);
      const limitedAt = emulator.rateLimited()[before];
      assert.ok(limitedAt !== undefined, 'the platform answered 429');
      assert.ok(reply!.at - limitedAt! >= 2000, `sent ${reply!.at - limitedAt!} ms after the 429 (retry_after 2 s)`);
    },
  );

  feature(
    plain,
    'rate_limit',
    'a storm of 429s over three chats loses no reply and sends none twice',
    async ({ emulator, home }) => {
      const chats = [user(emulator), user(emulator), user(emulator)];
      const before = emulator.rateLimited().length;
      // The next five sends are refused (retry_after 1 s): the channel waits each out and tries the part again.
      emulator.rateLimitSends(5, 1);
      for (let n = 0; n < 3; n++) for (const [i, chat] of chats.entries()) await chat.say(`storm ${i}.${n}`);
      for (const chat of chats) await sentAtLeast(chat, 3, 120_000);
      await settled(home, ...chats);
      assert.equal(
        chats.map((chat) => texts(chat.sent())),
        chats.map((_, i) => [0, 1, 2].map((n) => `echo: storm ${i}.${n}`)),
      );
      assert.is(emulator.rateLimited().length - before, 5, 'the platform answered 429 five times');
    },
  );

  feature(
    plain,
    'reconnect',
    'after the platform drops the bot, it reconnects with backoff and answers again',
    async ({ emulator, home }) => {
      const before = emulator.connections();
      await emulator.outage(1500);
      const chat = user(emulator);
      await chat.say('are you back');
      await sentAtLeast(chat, 1);
      await settled(home, chat);
      assert.equal(texts(chat.sent()), ['echo: are you back']);
      const attempts = emulator.connections() - before;
      // restart_backoff_ms 100, doubling: at most ~5 tries in 1.5 s; a loop without backoff would make hundreds.
      assert.ok(attempts >= 1 && attempts <= 8, `${attempts} connections during and after a 1.5 s outage`);
    },
  );

  /** The channel with streaming on (a placeholder where the platform cannot edit), the model streaming too. */
  const streamingConfig = (context: Context): Record<string, unknown> => {
    const live = lacks.edits
      ? { placeholder: 'Thinking…' }
      : { streaming: { enabled: true, throttle_seconds: 0, min_growth_chars: 1 } };
    const port = (context.config.gateway as { port: number }).port;
    return gatewayConfig(contract, context, port, { allow_from: [...allowed], ...live }, true);
  };

  plain(
    'killed while a reply part is at the platform unconfirmed: after the restart it is there exactly once',
    async (context) => {
      const chat = user(context.emulator);
      const hold = context.emulator.holdSendAnswers();
      await chat.say('before the crash');
      const deadline = Date.now() + 60_000;
      while (hold.held() === 0) {
        if (Date.now() > deadline) throw new Error('the reply never reached the platform');
        await sleep(20);
      }
      await context.gateway.kill();
      hold.release();
      // Started again as the streaming test below needs it (streamed replies, or a placeholder first): one gateway
      // start a channel fewer. What the restart must do with the part in doubt does not depend on how replies go out.
      context.config = streamingConfig(context);
      context.gateway = await startGatewayProcess(context.config, {}, context.home, READY_MS);
      const later = user(context.emulator);
      await later.say('after the crash');
      await sentAtLeast(later, 1);
      await settled(context.home, chat, later);
      assert.equal(
        texts(chat.sent()).filter((t) => !t.startsWith('Thinking')),
        ['echo: before the crash'],
      );
    },
  );

  // The gateway restarted after the crash above runs this config.
  plain('streaming: a reply is streamed by edits of one message, or a placeholder precedes it', async (context) => {
    const chat = user(context.emulator);
    await chat.say('stream these words to me please');
    const final = 'echo: stream these words to me please';
    const sent = await lastReads(chat, final);
    // Only the chat is watched here: after a restart a channel may go on logging what it catches up on (Matrix's
    // gateway does for longer than any limit), so the log is no sign of this turn's work.
    await quietValue(() => chat.sent().map((m) => [m.text, m.edits.length]), { quietMs: 1000 });
    if (lacks.edits) {
      assert.equal(texts(chat.sent()), ['Thinking…', final]);
    } else {
      assert.equal(texts(sent), [final]);
      assert.ok(sent[0]!.edits.length >= 1, 'the message was edited as the answer grew');
    }
  });

  plain.run();
}

function readLogs(home: TempHome | undefined): string {
  if (!home) return '';
  try {
    return readdirSync(join(home.home, 'logs'))
      .map((f) => readFileSync(join(home.home, 'logs', f), 'utf8'))
      .join('\n');
  } catch {
    return '';
  }
}
