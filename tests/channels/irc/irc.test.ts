// The IRC channel against the loopback IRC server: login (PASS, SASL, NickServ), channels joined, lines that fit the
// 512-byte limit with and without `draft/multiline`, and how a message in a channel addresses the bot.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createChannel } from '../../../actors/gateway/channel-factory.js';
import type { Channel, ChannelError, ChannelMessage } from '../../../adapters/channels/channel.js';
import type { ChannelEntry } from '../../../store/config/index.js';
import { eventually } from '../../support/eventually.js';
import { IrcServer } from '../../support/irc-server.js';

const irc = suite('IRC channel');

const entry = (settings: Record<string, unknown>): ChannelEntry =>
  ({ enabled: true, type: 'irc', settings: { tls: false, nick: 'ternbot', ...settings } }) as unknown as ChannelEntry;

async function connect(server: IrcServer, settings: Record<string, unknown>, heard: ChannelMessage[] = []) {
  const channel = await createChannel('irc', entry({ server: server.address, ...settings }), 1);
  await channel.start({ onMessage: (m) => void heard.push(m), onConnected: () => {}, onFailed: () => {} });
  return channel;
}

const paragraph = Array.from({ length: 120 }, (_, i) => `wörd${i}`).join(' ');

async function closing(server: IrcServer, channel: Channel | undefined): Promise<void> {
  await channel?.stop();
  await server.close();
}

irc('SASL PLAIN logs in, NickServ is identified to and the channels are joined', async () => {
  const server = await IrcServer.start();
  const channel = await connect(server, {
    sasl_user: server.saslUser,
    sasl_password: server.saslPassword,
    nickserv_password: 'ns-secret',
    channels: ['#room', '#other'],
  });
  await eventually(() => [...server.joined].sort(), ['#other', '#room']);
  assert.equal(server.nickserv, ['IDENTIFY ns-secret']);
  await closing(server, channel);
});

irc('a refused server password is unauthorized', async () => {
  const server = await IrcServer.start();
  const refused = await connect(server, { password: 'wrong' }).then(
    () => undefined,
    (error: ChannelError) => error.code,
  );
  assert.is(refused, 'unauthorized');
  await server.close();
});

irc('a long reply is one draft/multiline message, every line within 512 bytes as relayed', async () => {
  const server = await IrcServer.start();
  const channel = await connect(server, { password: server.password });
  const text = `first line\n\n${paragraph}`;
  await channel.send('alice', text);
  assert.equal(server.tooLong, []);
  assert.equal(
    server.to('alice').map((m) => m.text),
    [text],
  );
  assert.ok(server.to('alice')[0]!.lines >= 4, 'the paragraph took more than one line');
  await closing(server, channel);
});

irc('without draft/multiline each line is its own message, cut between words within 512 bytes', async () => {
  const server = await IrcServer.start({ without: ['draft/multiline'] });
  const channel = await connect(server, { password: server.password });
  await channel.send('alice', `first line\n\n${paragraph}`);
  assert.equal(server.tooLong, []);
  const lines = server.to('alice').map((m) => m.text);
  assert.is(lines[0], 'first line');
  assert.ok(lines.length >= 3, `${lines.length} lines`);
  assert.equal(lines.slice(1).join('').split(' '), paragraph.split(' '));
  await closing(server, channel);
});

irc('in a channel the bot answers to its nick; its address is dropped from the text', async () => {
  const server = await IrcServer.start();
  const heard: ChannelMessage[] = [];
  const channel = await connect(server, { password: server.password, channels: ['#room'] }, heard);
  server.say('alice', '#room', 'ternbot: what time is it');
  server.say('bob', '#room', 'just chatting');
  server.say('carol', '$bot', 'privately');
  await eventually(() => heard.length, 3);
  assert.equal(
    heard.map((m) => [m.chat, m.replyTo, m.sender, m.text, m.mentioned, m.messageId]),
    [
      ['group:#room', '#room', 'alice', 'what time is it', true, 'm1'],
      ['group:#room', '#room', 'bob', 'just chatting', false, 'm2'],
      ['direct:carol', 'carol', 'carol', 'privately', true, 'm3'],
    ],
  );
  await closing(server, channel);
});

irc.run();
