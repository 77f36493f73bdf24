import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Runtime } from '../../actors/runtime.js';
import { validateDraft, type Envelope, type EventDraft } from '../../bus/index.js';
import { loadConfig } from '../../store/config/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { tempHome } from '../support/temp-home.js';
import { writeConfig } from '../support/turn-fixture.js';

const spawned = (task: string): EventDraft => ({
  type: 'subagent.spawned',
  agent: 'main',
  session: 'sk_v1_p',
  turn: 't_p',
  task,
  data: {
    task_id: task,
    mode: 'spawn',
    agent_id: 'main',
    task: 'x',
    depth: 1,
    session_key: `v=1|agent=main|channel=subagent|account=default|chat=${task}`,
  },
});

test(
  'a subagent task the last run spawned and never ended ' + 'is recorded as canceled when the runtime starts again',
  async () => {
    const home = tempHome();
    writeConfig(home.home, 'http://127.0.0.1:9');
    const log = EventLog.open(home.sessions);
    const drafts: EventDraft[] = [
      { type: 'runtime.started', data: { pid: 1, command: 'gateway' } },
      spawned('sa_done'),
      {
        type: 'subagent.ended',
        agent: 'main',
        session: 'sk_v1_p',
        turn: 't_p',
        task: 'sa_done',
        data: { task_id: 'sa_done', status: 'completed' },
      },
      spawned('sa_cut'),
    ];
    drafts.forEach((d) => log.append(validateDraft(d)));
    await log.flushed();
    log.close();
    try {
      for (let run = 0; run < 2; run++) {
        const runtime = Runtime.start({ loaded: loadConfig({ env: home.env }), env: home.env, command: 'test' });
        await runtime.log.flushed();
        const ended = runtime.log.read({ type: 'subagent.ended' }) as Array<Envelope<'subagent.ended'>>;
        assert.equal(
          ended.map((e) => [e.task, e.turn, e.data.status, e.data.reason]),
          [
            ['sa_done', 't_p', 'completed', undefined],
            ['sa_cut', 't_p', 'canceled', 'the process ended while this task was running'],
          ],
          `run ${run + 1}`,
        );
        await runtime.close();
      }
    } finally {
      home.remove();
    }
  },
);

test.run();
