// What the Telegram emulator's HTTP server saw of the bot's sends, before any route ran: for a test that fails with
// parts missing, whether their requests arrived at all, and how each ended.
import type { Server } from 'node:http';
import type { TelegramEmulator } from './telegram-emulator.js';

export interface SeenSend {
  chat: string;
  /** `answered 200`, `aborted` (the client went before the body was read), `unanswered` (closed before the answer). */
  outcome: string;
}

/** Records every `sendMessage` request the emulator's server receives from now on. */
export function watchSends(emulator: TelegramEmulator): SeenSend[] {
  const seen: SeenSend[] = [];
  const http = (emulator.server as unknown as { server: Server }).server;
  http.prependListener('request', (req, res) => {
    if (!req.url?.includes('/sendMessage')) return;
    let body = '';
    let noted = false;
    const note = (outcome: string): void => {
      if (noted) return;
      noted = true;
      const chat = /"chat_id":"?(-?\d+)/.exec(body)?.[1] ?? '?';
      seen.push({ chat, outcome });
    };
    req.on('data', (piece: Buffer) => (body += piece.toString()));
    req.on('aborted', () => note('aborted'));
    res.on('finish', () => note(`answered ${res.statusCode}`));
    res.on('close', () => note('unanswered'));
  });
  return seen;
}
