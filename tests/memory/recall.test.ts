import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { sessionIdOf, validateDraft, type ValidDraft } from '../../bus/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { runCliAsync } from '../support/cli.js';
import type { TempHome } from '../support/temp-home.js';
import { completion } from '../support/vendor-chat-completions.js';
import { homeAndVendorSuite } from '../support/vendor-suite.js';
import type { RecordedRequest, ScriptedReply, VendorServer } from '../support/vendor-server.js';

const tern = (args: string[], env: NodeJS.ProcessEnv) => runCliAsync(args, env);
const keyOf = (name: string) => `v=1|agent=main|channel=cli|account=default|chat=direct:${name}`;
const ALICE = sessionIdOf(keyOf('alice'));
const BOB = sessionIdOf(keyOf('bob'));
const settings = {
  model_name: 'fast',
  stream: false,
  max_tool_iterations: 20,
  loop_detection: { enabled: false, repeat_threshold: 3, critical_threshold: 6, window_size: 20 },
};
const START = Date.UTC(2026, 2, 1, 9, 0, 0);
const turnId = (n: number) => `hist-${String(n).padStart(4, '0')}`;
/**
 * Past turns: 300 with the one run in the test, a history long enough that turn 3 is far back
 * (`RECALL_TURNS=1000` for the size).
 */
const HISTORY = Number(process.env.RECALL_TURNS ?? 300) - 1;
/** The turn in Bob's chat with his garage code. */
const BOBS_SECRET = 150;

/** What each past turn said: turn 3 is Alice's flat; Bob's chat mentions a flat in Lisbon too, with his secret. */
function said(n: number): { who: 'alice' | 'bob'; user: string; reply: string } {
  if (n === 3)
    return {
      who: 'alice',
      user: 'Remember that my flat in Lisbon is on Rua Augusta 12',
      reply: 'Noted: your flat is on Rua Augusta 12.',
    };
  if (n === BOBS_SECRET)
    return {
      who: 'bob',
      user: 'my flat in Lisbon has the garage code 4417',
      reply: 'I will keep the garage code 4417 in mind.',
    };
  const who = n % 2 === 0 ? 'alice' : 'bob';
  return {
    who,
    user: `Turn ${n}: what should I cook tonight with rice and beans?`,
    reply: `Try a stew with rice, beans and paprika (${n}).`,
  };
}

/** The past turns written straight into the workspace's log, as a gateway would have recorded them. */
async function writeHistory(home: TempHome): Promise<void> {
  const log = EventLog.open(home.sessions);
  for (let n = 1; n <= HISTORY; n++) {
    const { who, user, reply } = said(n);
    const session = who === 'alice' ? ALICE : BOB;
    const chat = `direct:${who}`;
    const at = START + n * 60_000;
    const keys = { agent: 'main', session, turn: turnId(n) };
    const drafts: ValidDraft[] = [
      validateDraft({
        agent: 'main',
        session,
        type: 'message.routed',
        at,
        data: {
          message_id: `m${n}`,
          channel: 'cli',
          account: 'default',
          chat,
          sender: who,
          text: user,
          session_key: keyOf(who),
          remote: false,
          media: [],
        },
      }),
      validateDraft({
        ...keys,
        type: 'turn.started',
        at,
        data: { message_id: `m${n}`, channel: 'cli', chat, text: user, session_key: keyOf(who), settings },
      }),
      validateDraft({ ...keys, type: 'turn.completed', at: at + 1000, data: { reply, iterations: 1 } }),
    ];
    for (const draft of drafts) log.append(draft);
  }
  await log.flushed();
  log.close();
}

function configure(home: TempHome, vendor: VendorServer, memory: Record<string, unknown> = {}): void {
  writeFileSync(
    join(home.home, 'config.json'),
    JSON.stringify({
      version: 2,
      agents: { defaults: { model: 'fast', memory } },
      model_list: [
        {
          model_name: 'fast',
          provider: 'openai',
          model: 'house-model',
          api_base: `${vendor.url}/v1`,
          api_keys: ['sk-test-key-0001'],
        },
      ],
    }),
  );
}

/**
 * The model's answers for one turn. A long session is compacted before its turn (a summary request, without tools):
 * that request gets a summary, the turn's requests get `answers` in order.
 */
function answer(vendor: VendorServer, ...answers: ScriptedReply[]): void {
  const summary = completion({ content: 'Earlier: cooking talk.' });
  vendor.reply(
    ...Array.from(
      { length: answers.length + 2 },
      () => (request: RecordedRequest) =>
        request.body.toString().includes('"memory_search"') ? (answers.shift() ?? summary) : summary,
    ),
  );
}

const call = (id: string, name: string, args: unknown) =>
  completion(
    { tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] },
    'tool_calls',
  );

type Result = {
  source: string;
  session?: string;
  turn_id?: string;
  at?: string;
  snippet: string;
  path?: string;
  startLine?: number;
  endLine?: number;
};

function toolResults(home: TempHome): Array<{ name: string; ok: boolean; content: string }> {
  const log = EventLog.open(home.sessions, { readOnly: true });
  try {
    return log
      .read({ type: 'tool.completed', limit: 100 })
      .flatMap((e) =>
        e.type === 'tool.completed' ? [{ name: e.data.name, ok: e.data.ok, content: e.data.content }] : [],
      );
  } finally {
    log.close();
  }
}

const test = homeAndVendorSuite('recall: memory_search and memory_get');

test("a fact said in turn 3 of 300 is found with its turn id; another user's chat is not", async ({ home, vendor }) => {
  configure(home, vendor);
  await writeHistory(home);
  answer(
    vendor,
    call('c1', 'memory_search', { query: 'flat Lisbon' }),
    call('c2', 'memory_get', { turn_id: turnId(BOBS_SECRET) }),
    completion({ content: 'Rua Augusta 12.' }),
  );
  const turn = await tern(['agent', '-m', 'Where is my flat?', '--session', 'alice'], home.env);
  assert.equal([turn.code, turn.stdout.trim()], [0, 'Rua Augusta 12.']);
  const [search, get] = toolResults(home);
  const found = (JSON.parse(search!.content) as { results: Result[] }).results;
  assert.equal(
    found.map((r) => [r.source, r.session, r.turn_id, r.at]),
    [['sessions', ALICE, turnId(3), new Date(START + 3 * 60_000).toISOString()]],
  );
  assert.match(found[0]!.snippet, 'user: Remember that my flat in Lisbon is on Rua Augusta 12');
  assert.not.match(search!.content, '4417');
  assert.equal(
    [get!.name, get!.ok, get!.content],
    ['memory_get', false, `No turn ${turnId(BOBS_SECRET)} in this chat's memory.`],
  );
});

test('memory.scope shared lets every chat of the agent recall the others', async ({ home, vendor }) => {
  configure(home, vendor, { scope: 'shared' });
  await writeHistory(home);
  answer(vendor, call('c1', 'memory_search', { query: 'garage code', max_results: 3 }), completion({ content: 'ok' }));
  assert.is((await tern(['agent', '-m', 'What was the garage code?', '--session', 'alice'], home.env)).code, 0);
  const found = (JSON.parse(toolResults(home)[0]!.content) as { results: Result[] }).results;
  assert.equal(
    found.map((r) => [r.session, r.turn_id]),
    [[BOB, turnId(BOBS_SECRET)]],
  );
});

test('tern memory search and reindex: a projection of the log, rebuilt when its file is gone', async ({
  home,
  vendor,
}) => {
  configure(home, vendor);
  await writeHistory(home);
  mkdirSync(join(home.workspace, 'memory'), { recursive: true });
  writeFileSync(
    join(home.workspace, 'memory', 'MEMORY.md'),
    '# Memory\n\nThe user likes green tea.\n\nTheir flat in Lisbon has two rooms.\n',
  );
  const search = async (...args: string[]) => {
    const out = await tern(['memory', 'search', ...args, '--json'], home.env);
    assert.equal([out.code, out.stderr], [0, '']);
    return (JSON.parse(out.stdout) as { results: Result[] }).results.map((r) =>
      r.source === 'memory' ? `${r.path}:${r.startLine}-${r.endLine}` : r.turn_id,
    );
  };
  assert.equal(
    (await search('flat', 'Lisbon')).sort(),
    ['memory/MEMORY.md:5-5', turnId(3), turnId(BOBS_SECRET)].sort(),
  );
  assert.equal(
    await search('flat', 'Lisbon', '--session', 'alice'),
    [turnId(3), 'memory/MEMORY.md:5-5'].sort((a, b) => (a.startsWith('hist') ? -1 : b.startsWith('hist') ? 1 : 0)),
  );
  rmSync(join(home.workspace, 'state', 'memory-index.json'));
  assert.equal(await search('garage'), [turnId(BOBS_SECRET)]);
  const reindex = await tern(['memory', 'reindex', '--json'], home.env);
  assert.equal([reindex.code, (JSON.parse(reindex.stdout) as { turns: number }).turns], [0, HISTORY]);
  // The turn run now is in the index the next time, folded from the log's tail.
  answer(vendor, completion({ content: 'Your cat is called Miso.' }));
  assert.is((await tern(['agent', '-m', 'My cat is called Miso', '--session', 'alice'], home.env)).code, 0);
  const cat = await tern(['memory', 'search', 'Miso', '--json'], home.env);
  const results = (JSON.parse(cat.stdout) as { results: Result[] }).results;
  assert.equal(
    results.map((r) => [r.source, r.session]),
    [['sessions', ALICE]],
  );
  const usage = await tern(['memory', 'find', 'x'], home.env);
  assert.equal(usage.code, 2);
});

test("data.forgotten drops the sender's turns from the index, saved or rebuilt", async ({ home, vendor }) => {
  configure(home, vendor);
  await writeHistory(home);
  assert.equal(JSON.parse((await tern(['memory', 'search', 'garage', '--json'], home.env)).stdout).results.length, 1);
  const forgot = await tern(['log', 'forget', '--sender', 'bob'], home.env);
  assert.is(forgot.code, 0, forgot.stderr);
  assert.equal(JSON.parse((await tern(['memory', 'search', 'garage', '--json'], home.env)).stdout).results, []);
  // Alice's turns are left: the even ones but Bob's secret, and turn 3 (149 of 299).
  const alices = Math.floor(HISTORY / 2);
  assert.equal(JSON.parse((await tern(['memory', 'reindex', '--json'], home.env)).stdout).turns, alices);
  assert.equal(JSON.parse((await tern(['memory', 'search', 'garage', '--json'], home.env)).stdout).results, []);
});

test('words find what the user said, whole; what only a reply said is not indexed by words', async ({
  home,
  vendor,
}) => {
  configure(home, vendor);
  await writeHistory(home);
  const search = async (query: string) => {
    const out = await tern(['memory', 'search', query, '--session', 'alice', '--json'], home.env);
    assert.equal([out.code, out.stderr], [0, '']);
    return (JSON.parse(out.stdout) as { results: Result[] }).results;
  };
  // "paprika" is in every cooking reply and no message; "Augusta", the last word but one of turn 3, the user said.
  assert.equal(await search('paprika'), []);
  const [found, ...rest] = await search('Augusta');
  assert.equal([found!.turn_id, rest.length], [turnId(3), 0]);
  // A hit still shows the reply, read from the log.
  assert.is(
    found!.snippet,
    'user: Remember that my flat in Lisbon is on Rua Augusta 12\nassistant: Noted: your flat is on Rua Augusta 12.',
  );
});

test('past memory.inline_max_chars the prompt carries the head of MEMORY.md and says to search', async ({
  home,
  vendor,
}) => {
  configure(home, vendor, { inline_max_chars: 200 });
  mkdirSync(join(home.workspace, 'memory'), { recursive: true });
  const lines = Array.from({ length: 10 }, (_, i) => `- fact ${i}: ${'x'.repeat(40)}`);
  writeFileSync(join(home.workspace, 'memory', 'MEMORY.md'), `${lines.join('\n')}\n`);
  vendor.reply(completion({ content: 'hi' }));
  assert.is((await tern(['agent', '-m', 'hello'], home.env)).code, 0);
  const log = EventLog.open(home.sessions, { readOnly: true });
  const [built] = log.read({ type: 'prompt.built' });
  log.close();
  const system = built?.type === 'prompt.built' ? built.data.system : '';
  const memory = system.slice(system.indexOf('## Memory (memory/MEMORY.md)'));
  // 510 characters; the head is the three whole lines within 200 (152 characters).
  assert.ok(
    memory.startsWith(
      `## Memory (memory/MEMORY.md)\n\n${lines.slice(0, 3).join('\n')}\n\n` +
        '[MEMORY.md goes on for 358 more characters: use memory_search to find what it holds.]\n\n## ',
    ),
  );
  assert.not.match(system, 'fact 3');
});

test.run();
