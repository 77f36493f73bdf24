// load_image in real turns against loopback vendors of each family: the model's next request carries the image (an
// oversized one scaled down), the log records what the model was shown, and the turn reruns identical.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rerunTurn } from '../../actors/replay.js';
import type { Envelope } from '../../bus/index.js';
import { runCliAsync } from '../support/cli.js';
import { startTurnFixture, writeConfig, type TurnFixture } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';
import { generated } from '../support/vendor-generate-content.js';
import { message } from '../support/vendor-messages.js';
import { startVendorServer, type ScriptedReply } from '../support/vendor-server.js';
import { tempHome } from '../support/temp-home.js';

interface Family {
  name: string;
  model: Record<string, unknown>;
  callLoadImage(path: string): ScriptedReply;
  answer(text: string): ScriptedReply;
  /** The images of the request, as the family carries them: [mime, base64]. */
  images(body: Record<string, unknown>): Array<[string, string]>;
}

type Parts = Array<Record<string, unknown>>;
const families: Family[] = [
  {
    name: 'chat-completions',
    model: { model_name: 'eyes', model: 'gpt-test' },
    callLoadImage: (path) =>
      completion(
        {
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'load_image', arguments: JSON.stringify({ path }) } },
          ],
        },
        'tool_calls',
      ),
    answer: (text) => completion({ content: text }),
    images: (body) =>
      (body.messages as Array<{ role: string; content: unknown }>)
        .flatMap((m) => (Array.isArray(m.content) ? (m.content as Parts) : []))
        .filter((p) => p.type === 'image_url')
        .map((p) => {
          const url = (p.image_url as { url: string }).url;
          const [, mime, data] = /^data:([^;]+);base64,(.*)$/.exec(url)!;
          return [mime!, data!];
        }),
  },
  {
    name: 'messages',
    model: { model_name: 'eyes', provider: 'anthropic', model: 'claude-test' },
    callLoadImage: (path) =>
      message([{ type: 'tool_use', id: 'toolu_1', name: 'load_image', input: { path } }], 'tool_use'),
    answer: (text) => message([{ type: 'text', text }]),
    images: (body) =>
      (body.messages as Array<{ content: unknown }>)
        .flatMap((m) => (Array.isArray(m.content) ? (m.content as Parts) : []))
        .flatMap((block) =>
          block.type === 'tool_result' && Array.isArray(block.content) ? (block.content as Parts) : [],
        )
        .filter((b) => b.type === 'image')
        .map((b) => {
          const source = b.source as { type: string; media_type: string; data: string };
          assert.is(source.type, 'base64');
          return [source.media_type, source.data];
        }),
  },
  {
    name: 'generate-content',
    model: { model_name: 'eyes', provider: 'gemini', model: 'gemini-test', api_base: '{vendor}/v1beta' },
    callLoadImage: (path) => generated([{ functionCall: { name: 'load_image', args: { path } } }]),
    answer: (text) => generated([{ text }]),
    images: (body) =>
      (body.contents as Array<{ parts: Parts }>)
        .flatMap((c) => c.parts)
        .filter((p) => p.inlineData)
        .map((p) => {
          const inline = p.inlineData as { mimeType: string; data: string };
          return [inline.mimeType, inline.data];
        }),
  },
];

const bodyAt = (f: TurnFixture, i: number) =>
  JSON.parse(f.vendor.requests[i]!.body.toString()) as Record<string, unknown>;

const fixtureFor = (family: Family): Promise<TurnFixture> =>
  startTurnFixture({ defaults: { model: 'eyes' }, models: [family.model] });

for (const family of families) {
  test(
    `${family.name}: an oversized image is scaled to 1568 px and reaches the next request; ` +
      `the log keeps it and the turn reruns identical`,
    async () => {
      const f = await fixtureFor(family);
      try {
        const big = await sharp({ create: { width: 3000, height: 2000, channels: 3, background: '#2a6f97' } })
          .png()
          .toBuffer();
        writeFileSync(join(f.runtime.loaded.workspace, 'chart.png'), big);
        f.vendor.reply(family.callLoadImage('chart.png'), family.answer('A blue chart.'), family.answer('Still here.'));
        const reply = await f.send('What is in chart.png?');
        assert.is(reply.kind === 'turn' && reply.text, 'A blue chart.');

        assert.equal(family.images(bodyAt(f, 0)), []);
        const shown = family.images(bodyAt(f, 1));
        assert.is(shown.length, 1);
        const [mime, data] = shown[0]!;
        assert.is(mime, 'image/png');
        const bytes = Buffer.from(data, 'base64');
        const meta = await sharp(bytes).metadata();
        assert.equal([meta.format, meta.width, meta.height], ['png', 1568, 1045]);

        const completed = f.events.find((e): e is Envelope<'tool.completed'> => e.type === 'tool.completed')!;
        assert.equal(completed.data, {
          call_id: completed.data.call_id,
          name: 'load_image',
          ok: true,
          content:
            `Loaded image chart.png (3000×2000, ${big.length} bytes); ` +
            `it is attached below, scaled to 1568×1045 (image/png, ${bytes.length} bytes).`,
          images: [{ mime: 'image/png', data }],
        });
        await f.runtime.log.committed();
        const logged = f.runtime.log.read({ turn: completed.turn! });
        assert.equal(logged.find((e) => e.type === 'tool.completed')?.data, completed.data);
        assert.equal(await rerunTurn(logged), { identical: true, compared: 8 });

        // The next turn's history holds what was said, not the image.
        await f.send('And now?');
        assert.equal(family.images(bodyAt(f, 2)), []);
      } finally {
        await f.close();
      }
    },
  );
}

test('tern replay shows the image the model was shown and --rerun says identical', async () => {
  const home = tempHome();
  const vendor = await startVendorServer();
  try {
    writeConfig(home.home, vendor.url);
    const small = await sharp({ create: { width: 40, height: 30, channels: 4, background: '#ff000080' } })
      .png()
      .toBuffer();
    const workspace = join(home.home, 'workspace');
    const tern = (args: string[]) => runCliAsync(args, home.env);
    // The user puts a picture in the workspace (owner-only, as tern makes it).
    mkdirSync(workspace, { recursive: true, mode: 0o700 });
    writeFileSync(join(workspace, 'dot.png'), small);
    vendor.reply(families[0]!.callLoadImage('dot.png'), completion({ content: 'A red dot.' }));
    const events = (await tern(['agent', '-m', 'look at dot.png', '--json'])).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Envelope);
    const turn = events.find((e) => e.type === 'turn.completed')!.turn!;
    const timeline = await tern(['replay', turn]);
    assert.match(
      timeline.stdout,
      new RegExp(
        `tool\\.completed +load_image ok: Loaded image dot\\.png \\(image/png, ` +
          `40×30, ${small.length} bytes\\); ` +
          `it is attached below\\. \\(\\+ image/png image, ${small.length} bytes, shown to the model\\)\\n`,
      ),
    );
    assert.equal(await tern(['replay', turn, '--rerun']), { code: 0, stdout: 'identical\n', stderr: '' });
  } finally {
    await vendor.close();
    home.remove();
  }
});

test.run();
