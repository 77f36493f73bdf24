import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../bus/index.js';
import type { ModelRequest } from '../support/rule-model.js';
import { startSubagentFixture, textOf } from '../support/subagent-fixture.js';

const doc = (front: string, body: string): string => `---\n${front}\n---\n${body}\n`;
const skill = (name: string, description: string): string =>
  doc(`name: ${name}\ndescription: ${description}`, `# ${name}`);

/** "call NAME" calls that tool with arguments that would leave a mark; a tool result is echoed back. */
function caller(r: ModelRequest) {
  if (r.last === 'tool') return { text: `result: ${r.toolResult}` };
  const name = /^call (\w+)$/.exec(r.user)?.[1];
  if (name === 'exec') return { calls: [{ name, arguments: { command: 'touch made-by-exec' } }] };
  if (name === 'write_file') return { calls: [{ name, arguments: { path: 'made-by-write.txt', content: 'x' } }] };
  if (name === 'read_file') return { calls: [{ name, arguments: { path: 'note.txt' } }] };
  return { text: 'ok' };
}

test(
  'AGENT.md frontmatter tools: only the listed tools are offered, ' +
    'a call to another is refused at execution, and an edit applies to the next turn',
  async () => {
    const f = await startSubagentFixture(caller, {
      files: {
        'workspace/AGENT.md': doc('name: Reader\ntools: [read_file, write_file, no_such_tool]', 'READER'),
        'workspace/note.txt': 'a note',
      },
    });
    try {
      assert.is(textOf(await f.say('call read_file')), 'result: a note');
      assert.equal([...f.model.requests[0]!.tools].sort(), ['read_file', 'write_file']);
      assert.is(textOf(await f.say('call exec')), 'result: tool "exec" is not available in this turn');
      assert.is(existsSync(join(f.home.workspace, 'made-by-exec')), false);
      const refused = f.events.filter(
        (e): e is Envelope<'tool.completed'> => e.type === 'tool.completed' && e.data.name === 'exec',
      );
      assert.equal(
        refused.map((e) => [e.data.ok, e.data.content]),
        [[false, 'tool "exec" is not available in this turn']],
      );
      assert.is(textOf(await f.say('call write_file')), 'result: wrote 1 bytes to made-by-write.txt');

      f.write('workspace/AGENT.md', doc('name: Reader\ntools: [read_file]', 'READER'));
      const offered = async (): Promise<string[]> => {
        await f.say('hello');
        return [...f.model.requests.at(-1)!.tools].sort();
      };
      // The edit is seen by modification time, within the 2 s recheck where no file watch fires.
      const deadline = Date.now() + 10_000;
      let tools = await offered();
      while (tools.length !== 1 && Date.now() < deadline) tools = await offered();
      assert.equal(tools, ['read_file']);
      assert.is(textOf(await f.say('call write_file')), 'result: tool "write_file" is not available in this turn');
    } finally {
      await f.close();
    }
  },
);

test(
  "/list skills names the skills of the chat's own agent: its workspace skills, " +
    'the shared ones, the built-in ones, filtered by its skills list',
  async () => {
    const f = await startSubagentFixture(() => ({ text: 'ok' }), {
      agents: {
        list: [{ id: 'main', default: true }, { id: 'research' }, { id: 'writer', skills: ['drafting', 'weather'] }],
      },
      files: {
        'skills/shared-notes/SKILL.md': skill('shared-notes', 'Notes every agent may use.'),
        'workspace/skills/main-only/SKILL.md': skill('main-only', 'Only for the main agent.'),
        'workspace-research/skills/digging/SKILL.md': skill('digging', 'Digs into sources.'),
        'workspace-writer/skills/drafting/SKILL.md': skill('drafting', 'Drafts prose.'),
        'workspace-writer/skills/unlisted/SKILL.md': skill(
          'unlisted',
          "In the writer's workspace but not in its skills list.",
        ),
      },
    });
    try {
      const listed = async (agent: string): Promise<string[]> =>
        textOf(await f.say('/list skills', { agent }))
          .split('\n')
          .map((line) => line.split(':')[0]!);
      assert.equal(await listed('main'), ['daily-plan', 'main-only', 'shared-notes', 'summarize', 'weather']);
      assert.equal(await listed('research'), ['daily-plan', 'digging', 'shared-notes', 'summarize', 'weather']);
      assert.equal(await listed('writer'), ['drafting', 'weather']);
    } finally {
      await f.close();
    }
  },
);

test.run();
