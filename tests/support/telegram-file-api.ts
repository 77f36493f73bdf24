// A minimal Bot API for what telegram-test-api lacks: updates carrying voice messages, getFile and file
// downloads. It records what the bot sends.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FileApi {
  url: string;
  sent: Array<{ chat_id: string; text: string }>;
  /** Queues one update for the next getUpdates. */
  push(update: Record<string, unknown>): void;
  close(): Promise<void>;
}

export async function startFileApi(files: Record<string, Buffer>): Promise<FileApi> {
  const queue: Array<Record<string, unknown>> = [];
  const sent: Array<{ chat_id: string; text: string }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '';
      const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
      const ok = (result: unknown): void =>
        void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, result }));
      const file = /^\/file\/bot[^/]+\/(.+)$/.exec(url);
      if (file) {
        const data = files[file[1]!];
        if (data) res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(data);
        else res.writeHead(404).end();
        return;
      }
      const method = url.split('/').pop();
      if (method === 'getMe') return ok({ id: 777, is_bot: true, first_name: 'Bot', username: 'FileBot' });
      if (method === 'getUpdates') return ok(queue.splice(0));
      if (method === 'getFile')
        return ok({ file_id: body.file_id, file_unique_id: 'u', file_path: `voice/${String(body.file_id)}.ogg` });
      if (method === 'sendMessage') {
        sent.push({ chat_id: String(body.chat_id), text: String(body.text) });
        return ok({
          message_id: sent.length,
          date: 0,
          chat: { id: Number(body.chat_id), type: 'private' },
          text: body.text,
        });
      }
      return ok(true);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent,
    push: (update) => queue.push(update),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
