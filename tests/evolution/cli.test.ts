import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Runtime } from '../../actors/runtime.js';
import type { Envelope } from '../../bus/index.js';
import { loadConfig } from '../../store/config/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { runCliAsync } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { startTurnFixture, type TurnFixture } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';
import type { ScriptedReply } from '../support/vendor-server.js';

const call = (id: string, name: string, args: unknown) =>
  completion(
    { tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] },
    'tool_calls',
  );
const skill = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\nSteps.`;

async function turn(
  f: TurnFixture,
  text: string,
  tool: string,
  args: unknown,
  ...then: ScriptedReply[]
): Promise<void> {
  f.vendor.reply(call(`c_${f.vendor.requests.length}`, tool, args), completion({ content: 'Done.' }), ...then);
  await f.send(text);
}

const drafted = (f: TurnFixture) => f.events.filter((e): e is Envelope<'skill.drafted'> => e.type === 'skill.drafted');

test(
  'tern skills drafts lists them; ' + 'reject and accept decide here, or through the process that holds the log',
  async () => {
    const f = await startTurnFixture({
      blocks: { evolution: { enabled: true, mode: 'apply', min_task_count: 2, min_success_ratio: 0.5 } },
    });
    let ids: string[] = [];
    try {
      await turn(f, 'Write a.txt containing a', 'write_file', { path: 'a.txt', content: 'a' });
      await turn(
        f,
        'Write b.txt containing b',
        'write_file',
        { path: 'b.txt', content: 'b' },
        completion({ content: skill('write-notes', 'Write notes to files.') }),
      );
      await eventually(() => drafted(f).length, 1);
      await turn(f, 'List the files here', 'list_dir', { path: '.' });
      await turn(
        f,
        'List the files in notes',
        'list_dir',
        { path: '.' },
        completion({ content: skill('list-files', 'List the files of a folder.') }),
      );
      ids = (await eventually(() => drafted(f).length, 2).then(() => drafted(f))).map((e) => e.data.draft);
    } finally {
      await f.runtime.close();
    }
    const home = f.home;
    try {
      const [writeId, listId] = ids as [string, string];
      const listed = JSON.parse((await runCliAsync(['skills', 'drafts', '--json'], home.env)).stdout) as {
        drafts: Array<Record<string, unknown>>;
      };
      assert.equal(
        listed.drafts.map((d) => [d.id, d.name, d.status, d.shape, d.copy]),
        [
          [
            listId,
            'list-files',
            'pending',
            'list|list_dir',
            join(home.workspace, 'state', 'evolution', 'drafts', listId, 'SKILL.md'),
          ],
          [
            writeId,
            'write-notes',
            'pending',
            'write|write_file',
            join(home.workspace, 'state', 'evolution', 'drafts', writeId, 'SKILL.md'),
          ],
        ],
      );
      const table = await runCliAsync(['skills', 'drafts'], home.env);
      assert.equal(table.stdout.split('\n')[0]!.split(/\s{2,}/), [
        'ID',
        'NAME',
        'STATUS',
        'SHAPE',
        'RECORDS',
        'DRAFTED',
        'DESCRIPTION',
      ]);
      assert.match(
        table.stdout,
        new RegExp(
          `${writeId}\\s+write-notes\\s+pending\\s+write\\|write_file\\s+2\\s+\\d{4}-\\d\\d-\\d\\d ` +
            `\\d\\d:\\d\\d\\s+Write notes to files\\.`,
        ),
      );

      const rejected = await runCliAsync(['skills', 'reject', writeId], home.env);
      assert.is(rejected.stdout, `rejected draft ${writeId} (write-notes)\n`, rejected.stderr);
      assert.not.ok(
        existsSync(join(home.workspace, 'state', 'evolution', 'drafts', writeId)),
        'the copy of a decided draft is gone',
      );

      // A runtime (as a gateway) now holds the log: the CLI queues its decision and reads the answer from the log.
      const runtime = Runtime.start({
        loaded: loadConfig({ env: home.env }),
        env: home.env,
        command: 'test',
        logError: () => {},
      });
      try {
        const accepted = await runCliAsync(['skills', 'accept', listId, '--json'], home.env);
        const body = JSON.parse(accepted.stdout) as Record<string, unknown>;
        assert.equal(body, {
          ok: true,
          draft: listId,
          name: 'list-files',
          status: 'applied',
          path: join(home.workspace, 'skills', 'list-files'),
        });
        assert.is(
          readFileSync(join(home.workspace, 'skills', 'list-files', 'SKILL.md'), 'utf8'),
          `${skill('list-files', 'List the files of a folder.')}\n`,
        );
        const again = await runCliAsync(['skills', 'accept', writeId], home.env);
        assert.is(again.code, 1);
        assert.is(
          again.stderr,
          `tern: draft ${writeId} was not accepted (draft ${writeId} (write-notes) ` +
            `was rejected already). Run \`tern skills drafts\` to see the drafts and their states.\n`,
        );
      } finally {
        await runtime.close();
      }
      const unknown = await runCliAsync(['skills', 'accept', 'd_missing', '--json'], home.env);
      assert.equal(JSON.parse(unknown.stdout), {
        ok: false,
        error: {
          code: 'draft_refused',
          message:
            'draft d_missing was not accepted (there is no draft d_missing). ' +
            'Run `tern skills drafts` to see the drafts and their states.',
        },
      });
      const log = EventLog.open(join(home.workspace, 'sessions'), { readOnly: true });
      try {
        const data = (type: string) => log.read({ type }).map((e) => e.data as { draft: string; by?: string });
        assert.equal(
          data('skill.rejected').map((d) => [d.draft, d.by]),
          [[writeId, 'cli']],
        );
        assert.equal(
          data('skill.accepted').map((d) => [d.draft, d.by]),
          [[listId, 'cli']],
        );
        assert.equal(
          data('skill.applied').map((d) => d.draft),
          [listId],
        );
      } finally {
        log.close();
      }
    } finally {
      await f.vendor.close();
      home.remove();
    }
  },
);

test.run();
