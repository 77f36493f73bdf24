import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Runtime } from '../../actors/runtime.js';
import { loadConfig } from '../../store/config/index.js';
import { message, startTurnFixture, writeConfig, type TurnFixture } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';
import { bodyOf as requestBody, startVendorServer } from '../support/vendor-server.js';
import { tempHome } from '../support/temp-home.js';

const test = suite('turn profile');

const NOW = new Date('2026-03-04T05:06:00Z');
const now = () => NOW;
const at = (text: string) => `[2026-03-04 05:06 UTC] ${text}`;
const toolCall = (id: string, name: string, args: unknown) => ({
  id,
  type: 'function' as const,
  function: { name, arguments: JSON.stringify(args) },
});
type Body = { messages: Array<Record<string, unknown>>; tools?: Array<{ function: { name: string } }> };
const bodyOf = (f: { vendor: { requests: unknown[] } }, i: number) =>
  requestBody((f.vendor as TurnFixture['vendor']).requests[i]) as Body;
const toolNames = (body: Body) => (body.tools ?? []).map((t) => t.function.name);

const profile = (blocks: Record<string, unknown>) => ({ defaults: { turn_profile: { enabled: true, ...blocks } } });

/** The running runtime takes the profile as a reload would give it. */
function setProfile(f: TurnFixture, blocks: Record<string, unknown> | undefined): void {
  writeConfig(f.home.home, f.vendor.url, blocks ? profile(blocks) : {});
  f.runtime.loaded.config = loadConfig({ env: f.home.env }).config;
}

test('a turn with history off is left out of the history the next turn with history on sends', async () => {
  const f = await startTurnFixture({}, { now });
  try {
    f.vendor.reply(
      completion({ content: 'Hi there.' }),
      completion({ content: 'Noted privately.' }),
      completion({ content: 'You said hello.' }),
    );
    await f.send('hello');
    setProfile(f, { history: { mode: 'off' } });
    const off = await f.send('my pin is 4321');
    assert.equal(off.kind === 'turn' && off.text, 'Noted privately.');
    assert.equal(
      bodyOf(f, 1).messages.slice(1),
      [{ role: 'user', content: at('my pin is 4321') }],
      'history off reads no history',
    );
    setProfile(f, undefined);
    await f.send('what did I say?');
    assert.equal(bodyOf(f, 2).messages.slice(1), [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'Hi there.' },
      { role: 'user', content: at('what did I say?') },
    ]);
    const started = f.events
      .filter((e) => e.type === 'turn.started')
      .map((e) => (e.data as { history?: string }).history ?? 'on');
    assert.equal(started, ['on', 'off', 'on']);
  } finally {
    await f.close();
  }
});

test('a turn with history off stays out of the history read back after a restart', async () => {
  const home = tempHome();
  const vendor = await startVendorServer();
  const turnIn = async (blocks: Record<string, unknown> | undefined, text: string) => {
    writeConfig(home.home, vendor.url, blocks ? profile(blocks) : {});
    const runtime = Runtime.start({ loaded: loadConfig({ env: home.env }), env: home.env, command: 'test', now });
    try {
      return await runtime.ask(message(text, 's1'));
    } finally {
      await runtime.close();
    }
  };
  try {
    vendor.reply(
      completion({ content: 'Hi there.' }),
      completion({ content: 'Noted privately.' }),
      completion({ content: 'You said hello.' }),
    );
    await turnIn(undefined, 'hello');
    await turnIn({ history: { mode: 'off' } }, 'my pin is 4321');
    await turnIn(undefined, 'what did I say?');
    const third = requestBody(vendor.requests[2]) as Body;
    assert.equal(third.messages.slice(1), [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'Hi there.' },
      { role: 'user', content: at('what did I say?') },
    ]);
  } finally {
    await vendor.close();
    home.remove();
  }
});

test('system_prompt off sends no system prompt and no time on the message; default sends both', async () => {
  // Skills off too: the catalog is the skills block's, not the system prompt's.
  const f = await startTurnFixture(profile({ system_prompt: { mode: 'off' }, skills: { mode: 'off' } }), { now });
  try {
    f.vendor.reply(completion({ content: 'One.' }), completion({ content: 'Two.' }));
    await f.send('first');
    assert.equal(bodyOf(f, 0).messages, [{ role: 'user', content: 'first' }]);
    setProfile(f, { system_prompt: { mode: 'default' }, skills: { mode: 'off' } });
    await f.send('second');
    const sent = bodyOf(f, 1).messages;
    assert.equal(sent[0]!.role, 'system');
    assert.ok(String(sent[0]!.content).startsWith('## Identity\n\nYou are Tern'), String(sent[0]!.content));
    assert.equal(sent.at(-1), { role: 'user', content: at('second') });
  } finally {
    await f.close();
  }
});

test('skills off leaves the catalog out of the system prompt; custom lists only the allowed skills', async () => {
  const f = await startTurnFixture({}, { now });
  try {
    f.vendor.reply(completion({ content: 'One.' }), completion({ content: 'Two.' }), completion({ content: 'Three.' }));
    const skillsSection = (i: number) =>
      /## Skills\n\n([^#]*)/
        .exec(String(bodyOf(f, i).messages[0]!.content))?.[1]
        ?.trim()
        .split('\n')
        .map((line) => line.replace(/:.*$/, ''));
    await f.send('one');
    assert.equal(skillsSection(0), ['- daily-plan', '- summarize', '- weather']);
    setProfile(f, { skills: { mode: 'off' } });
    await f.send('two');
    assert.equal(skillsSection(1), undefined);
    assert.ok(
      String(bodyOf(f, 1).messages[0]!.content).startsWith('## Identity'),
      'the rest of the system prompt stays',
    );
    setProfile(f, { skills: { mode: 'custom', custom: { allow: ['weather'] } } });
    await f.send('three');
    assert.equal(skillsSection(2), ['- weather']);
  } finally {
    await f.close();
  }
});

test('tools off sends no tools; custom sends exactly the allowed ones', async () => {
  const f = await startTurnFixture(profile({ tools: { mode: 'off' } }), { now });
  try {
    f.vendor.reply(completion({ content: 'One.' }), completion({ content: 'Two.' }));
    await f.send('one');
    assert.equal(toolNames(bodyOf(f, 0)), []);
    setProfile(f, { tools: { mode: 'custom', allow: ['todo', 'list_dir'] } });
    await f.send('two');
    assert.equal(toolNames(bodyOf(f, 1)).sort(), ['list_dir', 'todo']);
  } finally {
    await f.close();
  }
});

test(
  'a call to a tool the profile leaves out is refused at execution as a tool result, ' + 'and the tool does not run',
  async () => {
    const f = await startTurnFixture(profile({ tools: { mode: 'custom', allow: ['list_dir'] } }), { now });
    try {
      f.vendor.reply(
        completion(
          {
            tool_calls: [toolCall('call_1', 'todo', { action: 'write', todos: [{ id: 'milk', content: 'buy milk' }] })],
          },
          'tool_calls',
        ),
        completion({ content: 'Could not.' }),
      );
      const reply = await f.send('remember milk');
      assert.equal(reply.kind === 'turn' && reply.text, 'Could not.');
      assert.equal(bodyOf(f, 1).messages.at(-1), {
        role: 'tool',
        tool_call_id: 'call_1',
        content: 'tool "todo" is not available in this turn',
      });
      assert.equal(f.events.filter((e) => e.type === 'todo.written').length, 0, 'the todo tool never ran');
    } finally {
      await f.close();
    }
  },
);

test.run();
