import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { chatSocket, replyStreamed, startDashboard, type Frame } from '../support/dashboard-harness.js';
import { completionStreamText, sse } from '../support/vendor-chat-completions.js';
import { json } from '../support/vendor-server.js';

const strip = (frames: Frame[]) => frames.map((f) => [f.type, f.payload.content ?? null]);

test(
  'a streamed reply creates the message with the first ' + 'chunk and updates the same message id with the rest',
  async () => {
    const dashboard = await startDashboard();
    const chat = await chatSocket(dashboard);
    try {
      replyStreamed(dashboard.vendor, ['Hel', 'lo ', 'there']);
      const frames = await chat.send('hi');
      assert.equal(strip(frames), [
        ['typing.start', null],
        ['message.create', 'Hel'],
        ['message.update', 'Hello '],
        ['message.update', 'Hello there'],
        ['typing.stop', null],
      ]);
      const ids = new Set(frames.filter((f) => f.type.startsWith('message.')).map((f) => f.payload.message_id));
      assert.is(ids.size, 1);
      assert.ok(frames.every((f) => f.session_id === 'webtest'));
    } finally {
      chat.socket.close();
      await dashboard.close();
    }
  },
);

test(
  'an image image_generate draws reaches the chat as ' + 'message.create with the image inline, before the reply',
  async () => {
    const dashboard = await startDashboard({
      defaults: { model: 'fast', image_model: 'painter' },
      models: [{ model_name: 'painter', model: 'gpt-image-1' }],
    });
    const chat = await chatSocket(dashboard);
    try {
      const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#e76f51' } })
        .png()
        .toBuffer();
      const draw = {
        index: 0,
        id: 'i1',
        type: 'function',
        function: { name: 'image_generate', arguments: '{"prompt":"a tern"}' },
      };
      dashboard.vendor.reply(
        sse([completionStreamText([{ tool_calls: [draw] }], 'tool_calls')]),
        json({ created: 1, data: [{ b64_json: png.toString('base64') }] }),
      );
      replyStreamed(dashboard.vendor, ['Here it is.']);
      const frames = await chat.send('draw a tern');
      assert.equal(strip(frames), [
        ['typing.start', null],
        ['message.create', ''],
        ['message.create', 'Here it is.'],
        ['typing.stop', null],
      ]);
      const media = frames[1]!.payload.media as Array<Record<string, unknown>>;
      assert.equal(media, [
        {
          kind: 'image',
          name: media[0]!.name,
          bytes: png.length,
          mime: 'image/png',
          url: `data:image/png;base64,${png.toString('base64')}`,
        },
      ]);
      assert.match(String(media[0]!.name), /^t_[\w-]+-\w+\.png$/);
    } finally {
      chat.socket.close();
      await dashboard.close();
    }
  },
);

test('bad frames get an error frame naming the field, and ping gets pong', async () => {
  const dashboard = await startDashboard();
  const chat = await chatSocket(dashboard);
  try {
    const cases: Array<[string, Frame['payload']]> = [
      ['not json', { code: 'bad_frame', message: 'a frame must be one JSON object' }],
      [
        JSON.stringify({ type: 'message.delete', payload: {} }),
        { code: 'bad_frame', message: 'type must be message.send or ping' },
      ],
      [
        JSON.stringify({ type: 'message.send', payload: { content: '   ' } }),
        { code: 'bad_frame', message: 'payload.content must not be empty' },
      ],
      [
        JSON.stringify({ type: 'message.send', session_id: '../x', payload: { content: 'hi' } }),
        { code: 'bad_frame', message: 'session_id must be 1–64 letters, digits, _ or -' },
      ],
    ];
    for (const [text, expected] of cases) {
      const reply = new Promise<Frame>((resolve) =>
        chat.socket.once('message', (data) => resolve(JSON.parse(String(data)) as Frame)),
      );
      chat.socket.send(text);
      const frame = await reply;
      assert.equal([frame.type, frame.payload], ['error', expected], text);
    }
    const pong = new Promise<Frame>((resolve) =>
      chat.socket.once('message', (data) => resolve(JSON.parse(String(data)) as Frame)),
    );
    chat.socket.send(JSON.stringify({ type: 'ping', id: 'p1', payload: {} }));
    assert.equal(await pong.then((f) => [f.type, (f as Frame & { id?: string }).id]), ['pong', 'p1']);
  } finally {
    chat.socket.close();
    await dashboard.close();
  }
});

test('without a session cookie /pico/ws and /api/live refuse the upgrade with 401', async () => {
  const dashboard = await startDashboard();
  try {
    for (const path of ['/pico/ws', '/api/live']) {
      const status = await new Promise<number>((resolve, reject) => {
        const socket = new WebSocket(`${dashboard.launcher.url.replace('http', 'ws')}${path}`, {
          headers: { origin: dashboard.launcher.url },
        });
        socket.on('unexpected-response', (_req, res) => {
          resolve(res.statusCode ?? 0);
          res.resume();
        });
        socket.on('open', () => reject(new Error(`${path} accepted a socket without a session`)));
      });
      assert.is(status, 401, path);
    }
  } finally {
    await dashboard.close();
  }
});

test('with the gateway stopped a chat message gets an error frame saying so, and no typing', async () => {
  const dashboard = await startDashboard();
  const chat = await chatSocket(dashboard);
  try {
    await dashboard.host.stop();
    const frames = await chat.send('hi');
    assert.equal(
      frames.map((f) => [f.type, f.payload.code ?? null]),
      [['error', 'gateway_stopped']],
    );
  } finally {
    chat.socket.close();
    await dashboard.close();
  }
});

test.run();
