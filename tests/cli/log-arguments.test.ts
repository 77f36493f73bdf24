import * as assert from 'uvu/assert';
import { runCliAsync as tern } from '../support/cli.js';
import { writeConfig } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';
import { homeAndVendorSuite } from '../support/vendor-suite.js';

const KEY = 'sk-test-key-0001';
const ARGS = { path: 'notes.txt', content: `key ${KEY} and PLAINVALUE-55` };

const test = homeAndVendorSuite('tool arguments in tern log', ({ home, vendor }) => writeConfig(home.home, vendor.url));

/** The part of a text-view line after seq, time, type and the correlation keys. */
const dataOf = (line: string): string => line.replace(/^\s*\d+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+/, '');

test('the text view shows tool arguments as their keys and count; --json keeps the values, secrets masked', async ({
  home,
  vendor,
}) => {
  vendor.reply(
    completion(
      {
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'write_file', arguments: JSON.stringify(ARGS) } },
        ],
      },
      'tool_calls',
    ),
    completion({ content: 'written' }),
    completion({ content: 'again' }),
  );
  assert.is((await tern(['agent', '-m', 'write it'], home.env)).stdout, 'written\n');
  // The second turn's prompt carries the first turn's call in its history.
  assert.is((await tern(['agent', '-m', 'and now?'], home.env)).stdout, 'again\n');

  const text = await tern(['log', '--limit', '500'], home.env);
  assert.is(text.code, 0);
  assert.not.match(text.stdout, 'PLAINVALUE');
  assert.not.match(text.stdout, KEY);
  const lines = text.stdout.trimEnd().split('\n');
  const requested = lines.filter((line) => / tool\.requested /.test(line)).map(dataOf);
  assert.equal(requested, [
    '{"call_id":"call_1","name":"write_file","arguments":{"keys":["path","content"],"count":2}}',
  ]);
  const responded = lines.filter((line) => / provider\.responded /.test(line)).map(dataOf);
  // Cut at 160 characters, as every brief.
  assert.is(
    responded[0],
    '{"text":"","tool_calls":[{"id":"call_1","name":"write_file","arguments":{"keys":["path","content"],"count":2}}],' +
      '"usage":{"input_tokens":12,"output_tokens":5},"…',
  );

  const json = await tern(['log', '--json', '--type', 'tool.requested'], home.env);
  const events = json.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { data: { arguments: Record<string, string> } });
  assert.equal(
    events.map((e) => e.data.arguments),
    [{ path: 'notes.txt', content: 'key sk-t…01 and PLAINVALUE-55' }],
  );
});

test.run();
