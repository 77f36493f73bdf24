// A Discord button press (INTERACTION_CREATE of a button) is acknowledged at once and is the message its custom id
// says, from the presser, in the chat of the button: through a real gateway against the loopback Discord.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiscordApi } from '../support/discord-api.js';
import { until } from '../support/eventually.js';
import { quietGateway } from '../support/quiet.js';
import { startChannelsGateway, stopChannelsGateway, type ChannelsGateway } from './channels-gateway.js';

type Context = Partial<ChannelsGateway> & { discord?: DiscordApi };

const buttons = suite<Context>('Discord buttons');

buttons.after(async (context) => {
  await stopChannelsGateway(context);
  await context.discord?.close();
});

buttons('a press is acknowledged (deferred update) and answered as the text of its custom id', async (context) => {
  const discord = await DiscordApi.start();
  context.discord = discord;
  const chat = discord.direct('presser');
  Object.assign(
    context,
    await startChannelsGateway({
      discord: { enabled: true, type: 'discord', allow_from: [chat.sender], settings: discord.settings() },
    }),
  );
  discord.press(chat, 'yes please');
  const texts = () => chat.sent().map((m) => m.text);
  await until('the reply to the press', () => (texts().length > 0 ? true : undefined), 60_000, texts);
  assert.equal(await quietGateway(context.gateway!.home.sessions, texts), ['echo: yes please']);
  assert.equal(
    discord.callbacks.map((c) => c.type),
    [6],
  );
});

buttons.run();
