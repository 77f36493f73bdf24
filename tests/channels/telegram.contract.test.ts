import { TelegramBotApi } from '../support/telegram-bot-api.js';
import { channelContract } from './contract/kit.js';

/** Telegram counts a message's length after parsing its HTML: tags do not count, an entity is one character. */
const visible = (html: string): number => html.replace(/<[^>]+>/g, '').replace(/&(amp|lt|gt|quot);/g, '_').length;

channelContract({
  kind: 'telegram',
  maxMessageLength: 4096,
  measure: visible,
  formatted: 'echo: <b>bold</b> and <code>code</code>',
  plain: 'echo: bold and code',
  emulator: () => TelegramBotApi.start(),
});
