import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { screenLines, ternOnTerminal } from '../support/pty.js';
import { writeConfig } from '../support/turn-fixture.js';
import { completion, completionStreamText, sse } from '../support/vendor-chat-completions.js';
import { homeAndVendorSuite } from '../support/vendor-suite.js';
import type { VendorServer } from '../support/vendor-server.js';
import { runCliAsync } from '../support/cli.js';

const test = homeAndVendorSuite('tern agent shows what the turn does', async (ctx) => {
  writeConfig(ctx.home.home, ctx.vendor.url);
  writeFileSync(join(ctx.home.home, 'notes.txt'), 'unused');
});

/** A turn that reads a file (saying so first), then answers. */
function toolTurn(vendor: VendorServer): void {
  vendor.reply(
    completion(
      {
        content: 'Let me look at the file.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'list_dir', arguments: '{}' } }],
      },
      'tool_calls',
    ),
    completion({ content: 'The workspace is empty.' }),
  );
}

const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

test(
  "on a terminal, -m shows the model's text between tool " + 'calls and each tool step as they happen, then the reply',
  async ({ home, vendor }) => {
    toolTurn(vendor);
    const run = await ternOnTerminal(['agent', '-m', 'what is here?'], home.env);
    assert.is(run.code, 0);
    assert.match(run.raw, SPINNER, 'a spinner while waiting');
    const lines = screenLines(run.raw).filter((line) => line.trim() !== '');
    assert.equal(
      lines.map((line) => line.replace(/\(\d+\.\d s\)/, '(t)')),
      ['… Let me look at the file.', '→ list_dir {}', '✓ list_dir (t)', 'The workspace is empty.'],
    );
  },
);

test('with --json on a terminal, only the events: no spinner, no steps', async ({ home, vendor }) => {
  toolTurn(vendor);
  const run = await ternOnTerminal(['agent', '-m', 'what is here?', '--json'], home.env);
  assert.is(run.code, 0);
  assert.not.match(run.raw, SPINNER);
  assert.ok(
    screenLines(run.raw)
      .filter((l) => l.trim())
      .every((line) => line.startsWith('{')),
    run.raw,
  );
});

test('piped, tern agent prints the reply alone: stderr stays empty', async ({ home, vendor }) => {
  toolTurn(vendor);
  const result = await runCliAsync(['agent', '-m', 'what is here?'], home.env);
  assert.equal(result, { code: 0, stdout: 'The workspace is empty.\n', stderr: '' });
});

test('the interactive chat on a terminal streams the reply as it is written', async ({ home, vendor }) => {
  vendor.reply(sse([completionStreamText(['Hello ', 'there, ', 'friend.'].map((content) => ({ content })))]));
  const run = await ternOnTerminal(['agent'], home.env, ['hi\r', '\x04']);
  assert.is(run.code, 0);
  const body = JSON.parse(vendor.requests[0]!.body.toString()) as { stream?: boolean };
  assert.is(body.stream, true, 'the chat asks the model to stream');
  const lines = screenLines(run.raw).filter((line) => line.trim() !== '');
  assert.equal(
    lines.filter((line) => line.startsWith('tern> ')),
    ['tern> Hello there, friend.'],
    run.raw,
  );
  // The three pieces arrive as they were sent, each written as it came.
  assert.ok(
    run.raw.indexOf('Hello ') < run.raw.indexOf('there, ') && run.raw.indexOf('there, ') < run.raw.indexOf('friend.'),
  );
});

test.run();
