import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { dispatch } from '../../actors/dispatch.js';
import type { Envelope } from '../../bus/index.js';
import { eventually } from '../support/eventually.js';
import type { ModelRequest } from '../support/rule-model.js';
import { startSubagentFixture, textOf, type SubagentFixture } from '../support/subagent-fixture.js';

const doc = (front: string, body: string): string => `---\n${front}\n---\n${body}\n`;
const isChild = (r: ModelRequest): boolean => r.user.startsWith('You are a subagent');
const REGISTRY = '## Agents you can hand tasks to';

const agents = (home: string) => ({
  defaults: { model: 'fast' },
  list: [
    { id: 'main', default: true, subagents: { allow_agents: ['research', 'writer'] } },
    { id: 'research', model: 'smart' },
    { id: 'writer', workspace: join(home, 'writer-ws'), skills: ['daily-plan'], subagents: { allow_agents: ['*'] } },
    { id: 'secret' },
  ],
  dispatch: { rules: [{ name: 'research desk', agent: 'research', when: { channel: 'telegram', chat: 'direct:42' } }] },
});

const files = {
  'workspace/AGENT.md': doc('name: Main\ndescription: The front desk.', 'MAIN-GUIDE'),
  'workspace/note.txt': 'main note',
  'workspace-research/AGENT.md': doc(
    'name: Research Agent\ndescription: Digs into sources.\nskills: [weather]',
    'RESEARCH-GUIDE',
  ),
  'workspace-research/note.txt': 'research note',
  'writer-ws/AGENT.md': doc(
    'name: Writer\ndescription: Writes prose.\nmodel: smart\ntools: [read_file, message]',
    'WRITER-GUIDE',
  ),
  'writer-ws/note.txt': 'writer note',
  'workspace-secret/AGENT.md': doc('name: Secret\ndescription: Should never be listed.', 'SECRET-GUIDE'),
};

/** Reads note.txt and answers with the model id and what it read; "delegate to X" spawns X for that. */
function worker(r: ModelRequest) {
  if (r.last === 'tool') return { text: `${r.model}: ${r.toolResult}` };
  const to = /delegate to (\w+)/.exec(r.user)?.[1];
  if (to && !isChild(r)) return { calls: [{ name: 'spawn', arguments: { task: 'read your note', agent_id: to } }] };
  const asked = /ask (\w+) and wait/.exec(r.user)?.[1];
  if (asked && !isChild(r))
    return { calls: [{ name: 'subagent', arguments: { task: 'read your note', agent_id: asked } }] };
  return { calls: [{ name: 'read_file', arguments: { path: 'note.txt' } }] };
}

const start = (): Promise<SubagentFixture> =>
  startSubagentFixture(worker, { models: ['fast', 'smart'], files, agents });

const test = suite('agents: registry, workspaces, models');

test(
  'the registry lists exactly the allowed peers with their frontmatter name and description, ' + 'byte for byte',
  async () => {
    const f = await start();
    try {
      await f.say('hello');
      await f.say('hello again');
      const [first, second] = f.model.requests
        .filter((r) => r.system.includes('MAIN-GUIDE') && r.last === 'user')
        .map((r) => r.system);
      const registry =
        '{"agents":[{"id":"research","name":"Research Agent","description":"Digs into sources."},' +
        '{"id":"writer","name":"Writer","description":"Writes prose."}]}';
      assert.ok(
        first!.includes(
          `${REGISTRY}\n\n` +
            `These peer agents can take a task from you: pass one's id as agent_id to spawn (it works in the ` +
            `background) or subagent (you wait for its answer). Choose by description; ` +
            `use only the ids listed here.\n\n${registry}\n\n`,
        ),
      );
      assert.not.match(first!, /secret|Should never/i);
      assert.is(first!.split('## Runtime')[0], second!.split('## Runtime')[0]);
    } finally {
      await f.close();
    }
  },
);

test(
  'no registry for an agent without allowed peers, ' + 'nor for one whose AGENT.md leaves out spawn and subagent',
  async () => {
    const f = await start();
    try {
      await f.say('hi', { agent: 'research' });
      await f.say('hi', { agent: 'writer' });
      const research = f.model.requests.find((r) => r.system.includes('RESEARCH-GUIDE'))!;
      const writer = f.model.requests.find((r) => r.system.includes('WRITER-GUIDE'))!;
      assert.not.match(research.system, REGISTRY);
      assert.ok(research.tools.includes('spawn'));
      assert.not.match(writer.system, REGISTRY);
      assert.equal(writer.tools.sort(), ['message', 'read_file']);
    } finally {
      await f.close();
    }
  },
);

test('two agents routed by dispatch rules each use their own workspace files and model', async () => {
  const f = await start();
  try {
    const config = f.runtime.loaded.config;
    const route = dispatch(config, {
      channel: 'telegram',
      account: 'default',
      chat: 'direct:42',
      sender: 'u42',
      mentioned: false,
    });
    assert.is(route.agent, 'research');
    const research = await f.runtime.ask({
      agent: route.agent,
      session_key: route.sessionKey,
      channel: 'telegram',
      chat: 'direct:42',
      sender: 'u42',
      message_id: 'm1',
      text: 'what is in your note?',
      remote: true,
    });
    const other = dispatch(config, {
      channel: 'telegram',
      account: 'default',
      chat: 'direct:7',
      sender: 'u7',
      mentioned: false,
    });
    assert.is(other.agent, 'main');
    const main = await f.runtime.ask({
      agent: other.agent,
      session_key: other.sessionKey,
      channel: 'telegram',
      chat: 'direct:7',
      sender: 'u7',
      message_id: 'm2',
      text: 'what is in your note?',
      remote: true,
    });
    assert.is(textOf(research), 'gpt-smart: research note');
    assert.is(textOf(main), 'gpt-fast: main note');
    const prompts = f.model.requests
      .filter((r) => r.last === 'user')
      .map((r) => ({ model: r.model, guide: /(\w+)-GUIDE/.exec(r.system)?.[0] }));
    assert.equal(prompts, [
      { model: 'gpt-smart', guide: 'RESEARCH-GUIDE' },
      { model: 'gpt-fast', guide: 'MAIN-GUIDE' },
    ]);
  } finally {
    await f.close();
  }
});

test(
  'spawn with agent_id runs the peer in its workspace with its model; ' +
    'the frontmatter model applies at delegation; a peer not allowed is refused',
  async () => {
    const f = await start();
    try {
      await f.say('delegate to research');
      await f.say('delegate to writer');
      await eventually(() => f.events.filter((e) => e.type === 'subagent.ended').length, 2);
      assert.equal(
        f.sent.map((s) => s.text.replace(/sa_[0-9a-z]+/, 'ID')),
        [
          'Subagent task ID finished:\n\ngpt-smart: research note',
          'Subagent task ID finished:\n\ngpt-smart: writer note',
        ],
      );
      // Routed to directly, the writer has no model of its own in agents.list: the default model.
      assert.is(textOf(await f.say('your note?', { agent: 'writer' })), 'gpt-fast: writer note');
      const refused = await f.say('delegate to secret');
      assert.match(
        textOf(refused),
        new RegExp(
          /^gpt-fast: agent "main" is not allowed to hand tasks to "secret" /.source +
            /\(its subagents\.allow_agents allows: research, writer\)$/.source,
        ),
      );
      const unknown = await f.say('delegate to nobody');
      assert.match(textOf(unknown), /there is no agent "nobody" \(agents\.list has: main, research, writer, secret\)/);
    } finally {
      await f.close();
    }
  },
);

test(
  'subagent with agent_id waits for the peer, which runs in its workspace with its model; ' +
    'a peer not allowed is refused',
  async () => {
    const f = await start();
    try {
      // The peer's answer comes back as the tool result, and the asking turn answers with it.
      assert.is(textOf(await f.say('ask research and wait')), 'gpt-fast: gpt-smart: research note');
      const spawned = f.events.filter((e): e is Envelope<'subagent.spawned'> => e.type === 'subagent.spawned');
      assert.equal(
        spawned.map((e) => [e.data.mode, e.data.agent_id]),
        [['subagent', 'research']],
      );
      const refused = await f.say('ask secret and wait');
      assert.match(textOf(refused), /^gpt-fast: agent "main" is not allowed to hand tasks to "secret"/);
    } finally {
      await f.close();
    }
  },
);

test('each agent lists and uses its own skills: AGENT.md skills, else agents.list skills, else all', async () => {
  const f = await start();
  try {
    const names = async (agent: string) =>
      textOf(await f.say('/list skills', { agent }))
        .split('\n')
        .map((line) => line.split(':')[0]);
    assert.equal(await names('main'), ['daily-plan', 'summarize', 'weather']);
    assert.equal(await names('research'), ['weather']);
    assert.equal(await names('writer'), ['daily-plan']);
  } finally {
    await f.close();
  }
});

test("an agent's fallback models answer when its primary cannot, each switch recorded", async () => {
  const f = await startSubagentFixture(
    (r) => (r.model === 'gpt-broken' ? { refuse: 400 } : { text: `answered by ${r.model}` }),
    {
      models: ['fast', 'broken'],
      agents: { list: [{ id: 'main', model: { primary: 'broken', fallbacks: ['fast'] } }] },
    },
  );
  try {
    assert.is(textOf(await f.say('hello')), 'answered by gpt-fast');
    const retried = f.events.filter((e): e is Envelope<'provider.retried'> => e.type === 'provider.retried');
    assert.equal(
      retried.map((e) => ({ code: e.data.code, next: e.data.next_model })),
      [{ code: 'bad_request', next: 'fast' }],
    );
  } finally {
    await f.close();
  }
});

test('subagents.model of the delegating agent is the model of its subagents', async () => {
  const f = await startSubagentFixture(
    (r) => {
      if (isChild(r)) return { text: `child on ${r.model}` };
      if (r.last === 'tool') return { text: r.toolResult };
      return { calls: [{ name: 'subagent', arguments: { task: 'x' } }] };
    },
    { models: ['fast', 'cheap'], agents: { list: [{ id: 'main', subagents: { model: 'cheap' } }] } },
  );
  try {
    assert.is(textOf(await f.say('go')), 'child on gpt-cheap');
  } finally {
    await f.close();
  }
});

test.run();
