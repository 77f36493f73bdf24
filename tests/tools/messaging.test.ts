import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SendOutcome, SendTarget } from '../../adapters/tools/options.js';
import type { ToolMedia } from '../../adapters/tools/tool.js';
import { protectedFileMessage, outsideWorkspaceMessage } from '../../adapters/tools/sandbox/refusals.js';
import { toolsFixture } from '../support/tools-fixture.js';

/** Records what the tools send and answers each send with `outcome` (sent, unless a test says otherwise). */
function outbox(outcome: SendOutcome = { kind: 'sent' }) {
  const sent: { target: SendTarget; text: string; media: ToolMedia[] }[] = [];
  const send = async (target: SendTarget, text: string, media: ToolMedia[]): Promise<SendOutcome> => {
    sent.push({ target, text, media });
    return outcome;
  };
  return { sent, send };
}

const NOT_DELIVERED = 'tern tool connects to no channel; the gateway delivers';

test('message sends to the current chat or a named one; another channel needs its chat', async () => {
  const box = outbox();
  const f = toolsFixture(() => ({ messaging: { send: box.send } }));
  const context = { channel: 'telegram', chat: '42', remote: true };
  assert.equal(await f.call('message', { content: 'hi' }, context), {
    ok: true,
    content: 'message sent to telegram:42',
  });
  assert.equal(await f.call('message', { content: 'yo', channel: 'discord', chat_id: '7' }, context), {
    ok: true,
    content: 'message sent to discord:7',
  });
  assert.equal(await f.call('message', { content: 'yo', channel: 'discord' }, context), {
    ok: false,
    content: 'chat_id is required to send to another channel (discord)',
  });
  assert.equal(
    box.sent.map((s) => [s.target, s.text]),
    [
      [{ channel: 'telegram', chat: '42' }, 'hi'],
      [{ channel: 'discord', chat: '7' }, 'yo'],
    ],
  );
  f.close();
});

test('message attaches media only with media_enabled, and only readable files', async () => {
  const box = outbox();
  const off = toolsFixture(() => ({ messaging: { send: box.send } }));
  assert.equal(Object.keys(off.registry.specs().find((s) => s.name === 'message')!.parameters.properties as object), [
    'content',
    'channel',
    'chat_id',
  ]);
  off.close();
  const f = toolsFixture(() => ({ messaging: { send: box.send, mediaEnabled: true } }));
  writeFileSync(join(f.workspace, 'chart.png'), 'png');
  writeFileSync(join(f.workspace, '.env'), 'SECRET=1');
  assert.equal(await f.call('message', { content: 'see', media: ['chart.png'] }), {
    ok: true,
    content: 'message sent to cli:direct with 1 attachment',
  });
  assert.equal(box.sent.at(-1)!.media, [{ kind: 'image', path: join(f.workspace, 'chart.png'), mime: 'image/png' }]);
  assert.equal(await f.call('message', { content: 'x', media: ['.env'] }), {
    ok: false,
    content: protectedFileMessage('.env'),
  });
  assert.equal(await f.call('message', { content: 'x', media: ['/etc/passwd'] }), {
    ok: false,
    content: outsideWorkspaceMessage('/etc/passwd'),
  });
  assert.is(box.sent.length, 1);
  f.close();
});

test('send_file and load_image are under the read protections', async () => {
  const box = outbox();
  const f = toolsFixture(() => ({ messaging: { send: box.send } }));
  writeFileSync(join(f.workspace, 'report.pdf'), 'pdf');
  const cat = await sharp({ create: { width: 3, height: 2, channels: 3, background: '#c08040' } })
    .jpeg()
    .toBuffer();
  writeFileSync(join(f.workspace, 'cat.jpg'), cat);
  writeFileSync(join(f.workspace, 'not-a-cat.jpg'), 'jpg');
  writeFileSync(join(f.workspace, '.npmrc'), 'token');
  const cases: [
    string,
    Record<string, unknown>,
    { ok: boolean; content: string; media?: ToolMedia[]; images?: unknown[] },
  ][] = [
    ['send_file', { path: 'report.pdf', caption: 'Q1' }, { ok: true, content: 'sent report.pdf to cli:direct' }],
    ['send_file', { path: '.npmrc' }, { ok: false, content: protectedFileMessage('.npmrc') }],
    ['send_file', { path: 'missing.pdf' }, { ok: false, content: 'missing.pdf does not exist' }],
    [
      'load_image',
      { path: 'cat.jpg' },
      {
        ok: true,
        content: `Loaded image cat.jpg (image/jpeg, 3×2, ${cat.length} bytes); it is attached below.`,
        media: [{ kind: 'image', path: join(f.workspace, 'cat.jpg'), mime: 'image/jpeg' }],
        images: [{ mime: 'image/jpeg', data: cat.toString('base64') }],
      },
    ],
    [
      'load_image',
      { path: 'not-a-cat.jpg' },
      {
        ok: false,
        content: 'not-a-cat.jpg could not be read as an image (Input buffer contains unsupported image format)',
      },
    ],
    [
      'load_image',
      { path: 'report.pdf' },
      { ok: false, content: 'report.pdf is not an image (png, jpg, gif or webp)' },
    ],
    ['load_image', { path: '../../x.png' }, { ok: false, content: outsideWorkspaceMessage('../../x.png') }],
  ];
  for (const [tool, args, expected] of cases)
    assert.equal(await f.call(tool, args), expected, `${tool} ${JSON.stringify(args)}`);
  assert.equal(box.sent, [
    {
      target: { channel: 'cli', chat: 'direct' },
      text: 'Q1',
      media: [{ kind: 'file', path: join(f.workspace, 'report.pdf'), mime: 'application/pdf' }],
    },
  ]);
  f.close();
});

test('a text handed to the cluster member running its channel is reported as handed over, not as sent', async () => {
  const box = outbox({ kind: 'relayed', to: 'tg1' });
  const f = toolsFixture(() => ({ messaging: { send: box.send, mediaEnabled: true } }));
  writeFileSync(join(f.workspace, 'report.pdf'), 'pdf');
  const context = { channel: 'telegram', chat: 'direct:42', remote: true };
  assert.equal(await f.call('message', { content: 'hi' }, context), {
    ok: true,
    content: 'message handed to the gateway running tg1 (queued there, not yet confirmed sent) for telegram:direct:42',
  });
  assert.equal(await f.call('message', { content: 'see', media: ['report.pdf'] }, context), {
    ok: true,
    content:
      'message handed to the gateway running tg1 (queued there, ' +
      'not yet confirmed sent) for telegram:direct:42 with 1 attachment',
  });
  assert.equal(await f.call('send_file', { path: 'report.pdf' }, context), {
    ok: true,
    content:
      'report.pdf handed to the gateway running tg1 (queued there, not yet confirmed sent) for telegram:direct:42',
  });
  assert.is(box.sent.length, 3);
  f.close();
});

test('a text that reached no chat is an error result saying it was not delivered', async () => {
  const box = outbox({ kind: 'not_delivered', reason: NOT_DELIVERED });
  const f = toolsFixture(() => ({ messaging: { send: box.send } }));
  writeFileSync(join(f.workspace, 'report.pdf'), 'pdf');
  const context = { channel: 'telegram', chat: 'direct:42', remote: true };
  assert.equal(await f.call('message', { content: 'hi' }, context), {
    ok: false,
    content: `message not delivered to telegram:direct:42: ${NOT_DELIVERED}`,
  });
  assert.equal(await f.call('send_file', { path: 'report.pdf' }, context), {
    ok: false,
    content: `report.pdf not delivered to telegram:direct:42: ${NOT_DELIVERED}`,
  });
  assert.is(box.sent.length, 2);
  f.close();
});

test('message and send_file are left out when there is no way to send', () => {
  const f = toolsFixture();
  assert.equal(
    ['message', 'send_file', 'load_image'].map((name) => f.registry.has(name)),
    [false, false, true],
  );
  f.close();
});
test.run();
