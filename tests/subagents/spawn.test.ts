import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../bus/index.js';
import { eventually } from '../support/eventually.js';
import { gate, type ModelRequest } from '../support/rule-model.js';
import { startSubagentFixture, turnOf } from '../support/subagent-fixture.js';

const isChild = (r: ModelRequest): boolean => r.user.startsWith('You are a subagent');
const taskIdIn = (text: string): string => /task (sa_[0-9a-z]+)/.exec(text)?.[1] ?? '';

const test = suite('spawn and spawn_status');

test(
  'spawn returns a task id at once; ' +
    'the child reports through message to the same chat; spawn_status shows completed',
  async () => {
    const childMayAnswer = gate();
    let task = '';
    const f = await startSubagentFixture((r) => {
      if (isChild(r)) {
        if (r.last === 'tool') return { text: 'Reported.' };
        return {
          calls: [{ name: 'message', arguments: { content: 'Your report: 42 files.' } }],
          wait: childMayAnswer.wait,
        };
      }
      if (r.user.startsWith('status'))
        return r.last === 'tool'
          ? { text: r.toolResult }
          : { calls: [{ name: 'spawn_status', arguments: { task_id: task } }] };
      if (r.last === 'tool') return { text: `Started: ${r.toolResult}` };
      return { calls: [{ name: 'spawn', arguments: { task: 'Count the files.', label: 'count' } }] };
    });
    try {
      const reply = await f.say('Count the files in the background.', { chat: 'c7' });
      assert.is(reply.kind === 'turn' && reply.outcome, 'completed');
      const text = reply.kind === 'turn' ? reply.text : '';
      task = taskIdIn(text);
      assert.match(
        text,
        /^Started: Spawned subagent 'count' as task sa_[0-9a-z]+ \(agent main\)\. It will report to the user when done/,
      );
      // The parent's turn ended while the child still waits for its model's answer.
      await f.model.request(isChild);
      assert.equal(f.sent, []);
      const running = await f.say('status please', { chat: 'c7' });
      assert.match(
        running.kind === 'turn' ? running.text : '',
        new RegExp(`^\\[${task}\\] status=running  label="count"  agent=main  started=`),
      );
      childMayAnswer.open();
      await eventually(() => f.events.some((e) => e.type === 'subagent.ended'), true);
      assert.equal(f.sent, [{ channel: 'cli', chat: 'direct:c7', text: 'Your report: 42 files.' }]);
      const status = await f.say('status please', { chat: 'c7' });
      const shown = status.kind === 'turn' ? status.text : '';
      assert.match(
        shown,
        new RegExp(
          `^\\[${task}\\] status=completed  label="count"  agent=main  started=\\S+  ` +
            `ended=\\S+\\n  task:   Count the files\\.\\n  result: Reported\\.$`,
        ),
      );
      const ended = f.events.find((e): e is Envelope<'subagent.ended'> => e.type === 'subagent.ended')!;
      assert.equal(ended.data.status, 'completed');
      assert.is(ended.turn, turnOf(reply));
    } finally {
      await f.close();
    }
  },
);

test(
  'a spawned child that never messages the user has its final answer sent to the chat; ' + 'a failed one says why',
  async () => {
    const f = await startSubagentFixture((r) => {
      if (isChild(r)) return r.user.includes('quiet') ? { text: 'All 3 backups are fine.' } : { refuse: 400 };
      if (r.last === 'tool') return { text: 'ok' };
      return {
        calls: [{ name: 'spawn', arguments: { task: r.user.includes('two') ? 'a refused request' : 'quiet check' } }],
      };
    });
    try {
      await f.say('check backups');
      await eventually(() => f.sent.length, 1);
      assert.match(f.sent[0]!.text, /^Subagent task sa_[0-9a-z]+ finished:\n\nAll 3 backups are fine\.$/);
      await f.say('now two');
      await eventually(() => f.sent.length, 2);
      assert.match(
        f.sent[1]!.text,
        new RegExp(
          /^Subagent task sa_[0-9a-z]+ failed: Sorry, the model could not be reached: /.source +
            /model entry "fast" \(openai\/gpt-fast\) .*the request was refused/.source,
        ),
      );
    } finally {
      await f.close();
    }
  },
);

test("a spawned child's answer that reaches no chat is logged as not delivered", async () => {
  const f = await startSubagentFixture(
    (r) => {
      if (isChild(r)) return { text: 'All 3 backups are fine.' };
      if (r.last === 'tool') return { text: 'ok' };
      return { calls: [{ name: 'spawn', arguments: { task: 'quiet check' } }] };
    },
    { sendOutcome: { kind: 'not_delivered', reason: 'tern tool connects to no channel; the gateway delivers' } },
  );
  try {
    await f.say('check backups');
    await eventually(() => f.errors.length, 1);
    assert.is(f.sent.length, 1);
    assert.match(
      f.errors[0]!,
      new RegExp(
        /^subagent task sa_[0-9a-z]+: its result was not delivered /.source +
          /\(tern tool connects to no channel; the gateway delivers\)$/.source,
      ),
    );
  } finally {
    await f.close();
  }
});

test(
  "spawn_status of an unknown task and of another conversation's task is refused; " +
    'without task_id it lists this conversation',
  async () => {
    let asked = '';
    const f = await startSubagentFixture((r) => {
      if (isChild(r)) return { text: 'done' };
      if (r.last === 'tool') return { text: r.toolResult };
      if (r.user.startsWith('status'))
        return { calls: [{ name: 'spawn_status', arguments: asked ? { task_id: asked } : {} }] };
      return { calls: [{ name: 'spawn', arguments: { task: r.user } }] };
    });
    try {
      const first = await f.say('job one', { chat: 'a' });
      const mine = taskIdIn(first.kind === 'turn' ? first.text : '');
      await eventually(() => f.events.filter((e) => e.type === 'subagent.ended').length, 1);
      const list = await f.say('status', { chat: 'a' });
      assert.match(
        list.kind === 'turn' ? list.text : '',
        new RegExp(`^Subagent tasks \\(1: completed 1\\):\\n\\n\\[${mine}\\] status=completed`),
      );
      asked = mine;
      const other = await f.say('status', { chat: 'b' });
      assert.is(
        other.kind === 'turn' && other.text,
        `no subagent task "${mine}" in this conversation; spawn_status without task_id lists them`,
      );
      asked = 'sa_nope';
      const unknown = await f.say('status', { chat: 'a' });
      assert.is(
        unknown.kind === 'turn' && unknown.text,
        'no subagent task "sa_nope" in this conversation; spawn_status without task_id lists them',
      );
    } finally {
      await f.close();
    }
  },
);

test.run();
