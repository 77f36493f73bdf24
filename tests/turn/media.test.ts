import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SendOutcome } from '../../adapters/tools/options.js';
import type { Envelope } from '../../bus/index.js';
import { message, startTurnFixture } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';
import { json } from '../support/vendor-server.js';
import { withoutTime } from '../support/user-time.js';

const media = {
  defaults: { transcription_model: 'ears', image_model: 'painter' },
  models: [
    { model_name: 'ears', model: 'whisper-1' },
    { model_name: 'painter', model: 'gpt-image-1' },
  ],
};

test('a voice message is transcribed by the transcription model before its turn', async () => {
  const f = await startTurnFixture(media);
  try {
    const clip = join(f.home.home, 'voice.ogg');
    writeFileSync(clip, Buffer.from('OggS fake audio'));
    f.vendor.reply(json({ text: 'what is the weather in Oslo' }), completion({ content: 'Cold.' }));
    const reply = await f.runtime.ask({
      ...message('', 'v'),
      media: [{ kind: 'audio', path: clip, mime: 'audio/ogg' }],
    });
    assert.is(reply.kind === 'turn' && reply.text, 'Cold.');
    const [transcription, chat] = f.vendor.requests;
    assert.is(transcription!.url, '/v1/audio/transcriptions');
    assert.match(String(transcription!.headers['content-type']), /^multipart\/form-data; boundary=/);
    assert.match(transcription!.body.toString(), /name="model"\r\n\r\nwhisper-1\r\n/);
    assert.match(
      transcription!.body.toString(),
      /filename="voice\.ogg"\r\nContent-Type: audio\/ogg\r\n\r\nOggS fake audio\r\n/,
    );
    const messages = (JSON.parse(chat!.body.toString()) as { messages: Array<{ content: string }> }).messages;
    assert.is(withoutTime(String(messages.at(-1)!.content)), '[voice message] what is the weather in Oslo');
    assert.equal(f.events.find((e) => e.type === 'message.transcribed')?.data, {
      message_id: f.events.find((e): e is Envelope<'turn.started'> => e.type === 'turn.started')!.data.message_id,
      text: 'what is the weather in Oslo',
      model_name: 'ears',
    });
  } finally {
    await f.close();
  }
});

test('image_generate draws with the image model and saves the image in the workspace', async () => {
  const f = await startTurnFixture(media);
  try {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
    f.vendor.reply(
      completion(
        {
          tool_calls: [
            {
              id: 'i1',
              type: 'function',
              function: { name: 'image_generate', arguments: '{"prompt":"a tern over the sea"}' },
            },
          ],
        },
        'tool_calls',
      ),
      json({ created: 1, data: [{ b64_json: png.toString('base64'), revised_prompt: 'a tern gliding over the sea' }] }),
      completion({ content: 'Here it is.' }),
    );
    const reply = await f.send('draw a tern');
    assert.is(reply.kind === 'turn' && reply.text, 'Here it is.');
    assert.equal(JSON.parse(f.vendor.requests[1]!.body.toString()), {
      model: 'gpt-image-1',
      prompt: 'a tern over the sea',
      n: 1,
    });
    const completed = f.events.find((e): e is Envelope<'tool.completed'> => e.type === 'tool.completed')!;
    const drawn = new RegExp(
      /^Saved the image \(11 bytes\) to /.source +
        /(media\/images\/\S+\.png)\. The model drew: a tern gliding over the sea \[file:\1\]$/.source,
    );
    const match = drawn.exec(completed.data.content);
    assert.ok(match, completed.data.content);
    const saved = join(f.runtime.loaded.workspace, match![1]!);
    assert.ok(existsSync(saved));
    assert.equal(readFileSync(saved), png);
  } finally {
    await f.close();
  }
});

test(
  'image_generate says what became of the image it sent: ' + 'sent, handed to another member, not delivered, or failed',
  async () => {
    // Each turn's send answers with the next of these (a function that throws is a send that failed).
    const answers: Array<() => SendOutcome> = [
      () => ({ kind: 'sent' }),
      () => ({ kind: 'relayed', to: 'tg1' }),
      () => ({ kind: 'not_delivered', reason: 'tern tool connects to no channel; the gateway delivers' }),
      () => {
        throw new Error('no channel "cli" is running (running: none)');
      },
    ];
    const sent: string[] = [];
    const f = await startTurnFixture(media, {
      send: async (target, _text, files) => {
        sent.push(`${target.channel}:${target.chat} ${files.map((m) => m.kind).join(',')}`);
        return answers[sent.length - 1]!();
      },
    });
    try {
      const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
      const results: string[] = [];
      for (let turn = 0; turn < answers.length; turn++) {
        f.vendor.reply(
          completion(
            {
              tool_calls: [
                {
                  id: `i${turn}`,
                  type: 'function',
                  function: { name: 'image_generate', arguments: '{"prompt":"a tern"}' },
                },
              ],
            },
            'tool_calls',
          ),
          json({ created: 1, data: [{ b64_json: png.toString('base64') }] }),
          completion({ content: 'Done.' }),
        );
        await f.send('draw a tern');
        const completed = f.events.filter((e): e is Envelope<'tool.completed'> => e.type === 'tool.completed').at(-1)!;
        results.push(completed.data.content.replace(/media\/images\/\S+?\.png/g, 'IMAGE'));
      }
      assert.equal(sent, Array(4).fill('cli:direct:s1 image'));
      assert.equal(results, [
        'Saved the image (11 bytes) to IMAGE and sent it to cli:direct:s1. [file:IMAGE]',
        'Saved the image (11 bytes) to IMAGE and handed it to the gateway running tg1 (queued there, ' +
          'not yet confirmed sent) for cli:direct:s1. [file:IMAGE]',
        'Saved the image (11 bytes) to IMAGE and could not send it to the chat ' +
          '(tern tool connects to no channel; the gateway delivers). [file:IMAGE]',
        'Saved the image (11 bytes) to IMAGE and could not send it to the ' +
          'chat (no channel "cli" is running (running: none)). [file:IMAGE]',
      ]);
    } finally {
      await f.close();
    }
  },
);

test.run();
