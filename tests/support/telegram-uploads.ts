// The Bot API emulator (telegram-test-api) takes no uploads: this loopback front answers the upload methods
// (sendPhoto, sendDocument, sendAnimation, sendAudio, sendVideo) itself, records each file and adds the message to the
// emulator's store (so the chat shows it, its caption as text), and passes every other call through unchanged.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Response } from 'undici';
import type { TelegramEmulator } from './telegram-emulator.js';

export interface Upload {
  method: string;
  chatId: string;
  caption?: string;
  filename: string;
  bytes: Buffer;
}

export interface UploadFront {
  url: string;
  uploads: Upload[];
  close(): Promise<void>;
}

const UPLOADS = /^\/bot([^/]+)\/(sendPhoto|sendDocument|sendAnimation|sendAudio|sendVoice|sendVideo)$/;
const FIELD: Record<string, string> = {
  sendPhoto: 'photo',
  sendDocument: 'document',
  sendAnimation: 'animation',
  sendAudio: 'audio',
  sendVoice: 'voice',
  sendVideo: 'video',
};

export async function startUploadFront(emulator: TelegramEmulator): Promise<UploadFront> {
  const uploads: Upload[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const upload = UPLOADS.exec(req.url ?? '');
      if (!upload) {
        const forwarded = request(
          { host: '127.0.0.1', port: emulator.port, method: req.method, path: req.url, headers: req.headers },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        forwarded.end(body);
        return;
      }
      const [, token, method] = upload as unknown as [string, string, string];
      const form = await new Response(body, {
        headers: { 'content-type': String(req.headers['content-type']) },
      }).formData();
      // grammY sends the file field as `attach://<id>` and the bytes as the part named `<id>`.
      const attached = String(form.get(FIELD[method]!)).replace(/^attach:\/\//, '');
      const file = form.get(attached) as unknown as { name: string; arrayBuffer(): Promise<ArrayBuffer> };
      const chatId = String(form.get('chat_id'));
      const caption = form.get('caption') === null ? undefined : String(form.get('caption'));
      uploads.push({
        method,
        chatId,
        filename: file.name,
        bytes: Buffer.from(await file.arrayBuffer()),
        ...(caption !== undefined ? { caption } : {}),
      });
      const sent = emulator.server.addBotMessage(
        { chat_id: chatId, text: caption ?? '', ...(caption !== undefined ? { caption } : {}) },
        token,
      );
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          ok: true,
          result: {
            ...sent,
            [FIELD[method]!]:
              method === 'sendPhoto'
                ? [{ file_id: `f${uploads.length}`, file_unique_id: `u${uploads.length}`, width: 1, height: 1 }]
                : { file_id: `f${uploads.length}` },
          },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    uploads,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
