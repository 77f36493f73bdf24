import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sessionKeyOf } from '../../actors/agent.js';
import type { Envelope, EventType } from '../../bus/index.js';
import { eventually } from '../support/eventually.js';
import { ManualClock } from '../support/gateway-clock.js';
import { message, startTurnFixture, type TurnFixture } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';
import { json, type ScriptedReply } from '../support/vendor-server.js';

const call = (id: string, name: string, args: unknown) =>
  completion(
    { tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] },
    'tool_calls',
  );
const of = <T extends EventType>(f: TurnFixture, type: T) => f.events.filter((e): e is Envelope<T> => e.type === type);

const NOTES_SKILL =
  '---\nname: Write Notes\ndescription: Write a short note into a text file in the workspace.\n---\n' +
  '# Write notes\n\n1. Call write_file with the file name and the text.\n2. Say which file was written.';

/** A turn that writes one file: the model calls write_file, then answers. */
async function writeTurn(f: TurnFixture, file: string, text: string, ...then: ScriptedReply[]): Promise<void> {
  f.vendor.reply(
    call(`c_${file}`, 'write_file', { path: file, content: text }),
    completion({ content: `Wrote ${file}.` }),
    ...then,
  );
  await f.send(`Please write ${file} containing ${text}`);
}

test(
  'observe: each completed turn is recorded (tools, outcome, skills, duration, tokens); ' +
    'heartbeat turns are not; nothing is drafted',
  async () => {
    const f = await startTurnFixture({
      blocks: { evolution: { enabled: true, mode: 'observe', min_task_count: 1, min_success_ratio: 0.5 } },
    });
    try {
      await writeTurn(f, 'a.txt', 'alpha');
      f.vendor.reply(json({ error: { message: 'bad key', type: 'invalid_request_error' } }, 401));
      await f.send('/use weather Oslo tomorrow?');
      const heartbeat = sessionKeyOf({ agent: 'main', channel: 'system', dimensions: [['chat', 'direct:heartbeat']] });
      f.vendor.reply(completion({ content: 'HEARTBEAT_OK' }));
      await f.runtime.ask({
        ...message('Heartbeat: run the periodic tasks', 'hb'),
        session_key: heartbeat,
        channel: 'system',
        chat: 'direct:heartbeat',
        sender: 'heartbeat',
      });
      const records = await eventually(() => of(f, 'learning.recorded').length, 2).then(() =>
        of(f, 'learning.recorded'),
      );
      assert.is(records.length, 2);
      const turns = of(f, 'turn.started');
      assert.equal(
        records.map((r) => r.turn),
        [turns[0]!.turn, turns[1]!.turn],
        'the heartbeat turn (the third) has no record',
      );
      assert.equal(
        records.map((r) => ({ ...r.data, duration_ms: typeof r.data.duration_ms })),
        [
          {
            task: 'Please write a.txt containing alpha',
            shape: 'write|write_file',
            channel: 'cli',
            tools: ['write_file'],
            outcome: 'success',
            skills: [],
            duration_ms: 'number',
            tokens: { input: 24, output: 10 },
          },
          {
            task: 'Oslo tomorrow?',
            shape: 'oslo|-',
            channel: 'cli',
            tools: [],
            outcome: 'failure',
            reason: records[1]!.data.reason,
            skills: ['weather'],
            duration_ms: 'number',
            tokens: { input: 0, output: 0 },
          },
        ],
      );
      assert.match(records[1]!.data.reason!, /^auth: /);
      assert.equal([records[0]!.agent, records[0]!.session], ['main', turns[0]!.session]);
      assert.is(of(f, 'skill.drafted').length + of(f, 'skill.draft_failed').length, 0);
      assert.is(f.vendor.requests.length, 4, 'no drafting request');
    } finally {
      await f.close();
    }
  },
);

test('disabled (the default): no record and no event of its own, not even at shutdown', async () => {
  const f = await startTurnFixture();
  await writeTurn(f, 'a.txt', 'alpha');
  await f.close();
  assert.equal(of(f, 'learning.recorded'), []);
  assert.equal(
    f.events.filter((e) => e.type === 'actor.transitioned' && e.data.actor === 'evolution'),
    [],
  );
});

test(
  'draft: once a shape has min_task_count records at min_success_ratio, ' + 'the model drafts a skill from them',
  async () => {
    const f = await startTurnFixture({
      blocks: {
        evolution: { enabled: true, mode: 'draft', min_task_count: 2, min_success_ratio: 0.5, state_dir: 'learned' },
      },
    });
    try {
      await writeTurn(f, 'a.txt', 'alpha');
      f.vendor.reply(completion({ content: 'Hello!' }));
      await f.send('hello there');
      assert.is(f.vendor.requests.length, 3, 'one record per shape: nothing to draft yet');
      await writeTurn(f, 'b.txt', 'beta', completion({ content: `\`\`\`markdown\n${NOTES_SKILL}\n\`\`\`` }));
      const drafted = await eventually(() => of(f, 'skill.drafted').length, 1).then(() => of(f, 'skill.drafted')[0]!);
      const records = of(f, 'learning.recorded').filter((r) => r.data.shape === 'write|write_file');
      assert.equal(
        { ...drafted.data, draft: '' },
        {
          draft: '',
          shape: 'write|write_file',
          name: 'write-notes',
          description: 'Write a short note into a text file in the workspace.',
          content: `${NOTES_SKILL.replace('name: Write Notes', 'name: write-notes')}\n`,
          records: records.map((r) => r.seq),
          success_ratio: 1,
          model_name: 'fast',
        },
      );
      assert.match(drafted.data.draft, /^d_[0-9a-z]+$/);
      const request = JSON.parse(f.vendor.requests[5]!.body.toString()) as {
        messages: Array<{ role: string; content: string }>;
        tools?: unknown[];
      };
      assert.match(request.messages[0]!.content, /^You write skills for an AI agent\./);
      assert.is(
        request.messages[1]!.content,
        '2 tasks of the kind "write|write_file", 2 of them succeeded:\n\n1. Please write a.txt containing alpha\n' +
          '   tools: write_file; succeeded\n2. Please write b.txt containing beta\n   tools: write_file; succeeded',
      );
      assert.is(request.tools, undefined);
      const copy = join(f.home.workspace, 'learned', 'drafts', drafted.data.draft, 'SKILL.md');
      assert.is(readFileSync(copy, 'utf8'), drafted.data.content);
      await writeTurn(f, 'c.txt', 'gamma');
      await writeTurn(f, 'd.txt', 'delta');
      assert.is(of(f, 'skill.drafted').length, 1, 'a shape with a draft waiting for a decision is not drafted again');
    } finally {
      await f.close();
    }
  },
);

test(
  'draft: a shape below min_success_ratio is not drafted; ' + 'a draft the model botches is recorded as failed',
  async () => {
    const f = await startTurnFixture({
      blocks: { evolution: { enabled: true, mode: 'draft', min_task_count: 2, min_success_ratio: 0.7 } },
    });
    try {
      await writeTurn(f, 'a.txt', 'alpha');
      f.vendor.reply(
        call('c_x', 'write_file', { path: 'x.txt', content: 'x' }),
        json({ error: { message: 'overloaded', type: 'server_error' } }, 400),
      );
      await f.send('Please write x.txt containing x');
      assert.equal(
        of(f, 'learning.recorded').map((r) => r.data.outcome),
        ['success', 'failure'],
      );
      assert.is(of(f, 'skill.drafted').length + of(f, 'skill.draft_failed').length, 0, '1 of 2 succeeded: below 0.7');
      await writeTurn(f, 'b.txt', 'beta');
      assert.is(of(f, 'skill.draft_failed').length, 0, '2 of 3: still below 0.7');
      await writeTurn(f, 'c.txt', 'gamma', completion({ content: 'Sure, here are some ideas.' }));
      const failed = await eventually(() => of(f, 'skill.draft_failed').length, 1).then(
        () => of(f, 'skill.draft_failed')[0]!,
      );
      assert.equal(
        failed.data.reason,
        "the model's draft is not a skill: SKILL.md has no frontmatter (allowed: " +
          'a --- block with name and description first)',
      );
      assert.equal(
        failed.data.records,
        of(f, 'learning.recorded').map((r) => r.seq),
      );
      await writeTurn(f, 'd.txt', 'delta');
      assert.is(
        f.vendor.requests.length,
        11,
        'the records of a failed draft are not tried again; one new record is not enough',
      );
    } finally {
      await f.close();
    }
  },
);

test(
  'apply: an accepted draft is written into the workspace skills/, ' + 'the skill it replaces kept as a backup',
  async () => {
    const f = await startTurnFixture({
      blocks: { evolution: { enabled: true, mode: 'apply', min_task_count: 2, min_success_ratio: 0.5 } },
    });
    try {
      const existing = join(f.home.workspace, 'skills', 'write-notes');
      mkdirSync(existing, { recursive: true });
      writeFileSync(join(existing, 'SKILL.md'), '---\nname: write-notes\ndescription: my own\n---\nold\n');
      await writeTurn(f, 'a.txt', 'alpha');
      await writeTurn(f, 'b.txt', 'beta', completion({ content: NOTES_SKILL }));
      const draft = (await eventually(() => of(f, 'skill.drafted').length, 1).then(() => of(f, 'skill.drafted')[0]!))
        .data.draft;
      assert.is(
        readFileSync(join(existing, 'SKILL.md'), 'utf8'),
        '---\nname: write-notes\ndescription: my own\n---\nold\n',
        'a draft alone changes nothing',
      );
      f.runtime.bus.publish({
        type: 'skill.decision.requested',
        data: { request: 'r1', draft, decision: 'accept', by: 'test' },
      });
      const applied = await eventually(() => of(f, 'skill.applied').length, 1).then(() => of(f, 'skill.applied')[0]!);
      const backups = readdirSync(join(f.home.workspace, 'skills', '.backups'));
      assert.equal(backups.length, 1);
      assert.match(backups[0]!, /^write-notes-\d{8}T\d{6}Z$/);
      assert.equal(applied.data, {
        draft,
        name: 'write-notes',
        path: existing,
        backup: join(f.home.workspace, 'skills', '.backups', backups[0]!),
        request: 'r1',
      });
      assert.is(
        readFileSync(join(existing, 'SKILL.md'), 'utf8'),
        `${NOTES_SKILL.replace('name: Write Notes', 'name: write-notes')}\n`,
      );
      assert.is(
        readFileSync(join(applied.data.backup!, 'SKILL.md'), 'utf8'),
        '---\nname: write-notes\ndescription: my own\n---\nold\n',
      );
      assert.equal(
        of(f, 'skill.accepted').map((e) => e.data),
        [{ draft, by: 'test', request: 'r1' }],
      );
      f.runtime.bus.publish({
        type: 'skill.decision.requested',
        data: { request: 'r2', draft, decision: 'reject', by: 'test' },
      });
      assert.equal(
        of(f, 'skill.decision.refused').map((e) => e.data),
        [{ request: 'r2', draft, reason: `draft ${draft} (write-notes) was applied already` }],
      );
      const listed = await f.send('/list skills');
      assert.match(
        listed.kind === 'command' ? listed.text : '',
        /^write-notes: Write a short note into a text file in the workspace\.$/m,
      );
      assert.not.ok(
        existsSync(join(f.home.workspace, 'state', 'evolution', 'drafts', draft)),
        'the decided draft has no copy left',
      );
    } finally {
      await f.close();
    }
  },
);

test('reject: the draft is closed and nothing is written; an unknown draft is refused', async () => {
  const f = await startTurnFixture({
    blocks: { evolution: { enabled: true, mode: 'apply', min_task_count: 2, min_success_ratio: 0.5 } },
  });
  try {
    await writeTurn(f, 'a.txt', 'alpha');
    await writeTurn(f, 'b.txt', 'beta', completion({ content: NOTES_SKILL }));
    const draft = (await eventually(() => of(f, 'skill.drafted').length, 1).then(() => of(f, 'skill.drafted')[0]!)).data
      .draft;
    f.runtime.bus.publish({
      type: 'skill.decision.requested',
      data: { request: 'r1', draft, decision: 'reject', by: 'test' },
    });
    f.runtime.bus.publish({
      type: 'skill.decision.requested',
      data: { request: 'r2', draft: 'd_nope', decision: 'accept', by: 'test' },
    });
    assert.equal(
      of(f, 'skill.rejected').map((e) => e.data),
      [{ draft, by: 'test', request: 'r1' }],
    );
    assert.equal(
      of(f, 'skill.decision.refused').map((e) => e.data.reason),
      ['there is no draft d_nope (see `tern skills drafts`)'],
    );
    assert.not.ok(existsSync(join(f.home.workspace, 'skills', 'write-notes')));
  } finally {
    await f.close();
  }
});

test(
  'scheduled: the cold path runs at each cold_path_times minute (local time, an injected clock), once; ' +
    'manual never runs it',
  async () => {
    const clock = new ManualClock();
    const f = await startTurnFixture(
      {
        blocks: {
          evolution: {
            enabled: true,
            mode: 'draft',
            min_task_count: 2,
            min_success_ratio: 0.5,
            cold_path_trigger: 'scheduled',
            cold_path_times: ['03:00'],
          },
        },
      },
      { evolutionClock: clock },
    );
    try {
      await writeTurn(f, 'a.txt', 'alpha');
      await writeTurn(f, 'b.txt', 'beta');
      assert.is(f.vendor.requests.length, 4, 'no run after the turns');
      const ready = new Date(2026, 2, 1, 2, 59, 30).getTime();
      clock.advance(ready);
      assert.is(f.vendor.requests.length, 4, 'no run at 02:59');
      f.vendor.reply(completion({ content: NOTES_SKILL }));
      clock.advance(30_000);
      await eventually(() => of(f, 'skill.drafted').length, 1);
      assert.equal(
        of(f, 'actor.transitioned')
          .filter((e) => e.data.actor === 'evolution')
          .map((e) => [e.data.from, e.data.to, e.data.event]),
        [
          ['idle', 'running', 'after.minute'],
          ['running', 'idle', 'done.coldPath'],
        ],
      );
      clock.advance(60_000);
      assert.is(of(f, 'actor.transitioned').filter((e) => e.data.actor === 'evolution').length, 2, 'nothing at 03:01');
    } finally {
      await f.close();
    }
    const manual = await startTurnFixture(
      {
        blocks: {
          evolution: {
            enabled: true,
            mode: 'draft',
            min_task_count: 2,
            min_success_ratio: 0.5,
            cold_path_trigger: 'manual',
            cold_path_times: ['03:00'],
          },
        },
      },
      { evolutionClock: clock },
    );
    try {
      await writeTurn(manual, 'a.txt', 'alpha');
      await writeTurn(manual, 'b.txt', 'beta');
      clock.advance(new Date(2026, 2, 2, 3, 0, 0).getTime() - clock.now());
      assert.is(manual.vendor.requests.length, 4);
      assert.equal(of(manual, 'learning.recorded').length, 2);
    } finally {
      await manual.close();
    }
  },
);

test.run();
