import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateDraft, type EventDraft } from '../../bus/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { runCli } from '../support/cli.js';
import { tempHome } from '../support/temp-home.js';

const moved = (actor: string, to: string, event: string, turn?: string): EventDraft => ({
  type: 'actor.transitioned',
  agent: 'main',
  turn,
  data: { actor, machine: actor.split(':')[0]!, to, event },
});

test('inspect lists the live actors of the last run: state, the event that moved it, since when', async () => {
  const home = tempHome();
  const log = EventLog.open(home.sessions);
  const drafts: EventDraft[] = [
    { type: 'runtime.started', data: { pid: 1, command: 'old run' } },
    moved('turn:t_old', 'calling_model', 'xstate.init', 't_old'),
    { type: 'runtime.started', data: { pid: 2, command: 'gateway' } },
    moved('turn:t_1', 'building_prompt', 'xstate.init', 't_1'),
    moved('turn:t_1', 'calling_model', 'xstate.done.actor.0.turn.building_prompt', 't_1'),
    moved('turn:t_2', 'calling_model', 'xstate.init', 't_2'),
    { type: 'actor.stopped', data: { actor: 'turn:t_2', machine: 'turn', reason: 'completed' } },
  ];
  drafts.forEach((d) => log.append(validateDraft(d)));
  await log.flushed();
  // Closed before the synchronous run below blocks this process: until lmdb has closed it here, `tern` waits.
  await log.close();
  const { code, stdout } = runCli(['inspect', '--json'], home.env);
  home.remove();
  assert.is(code, 0);
  const { actors } = JSON.parse(stdout) as { actors: Array<Record<string, unknown>> };
  assert.equal(
    actors.map(({ since: _s, ...a }) => a),
    [
      {
        actor: 'turn:t_1',
        machine: 'turn',
        state: 'calling_model',
        event: 'xstate.done.actor.0.turn.building_prompt',
        agent: 'main',
        turn: 't_1',
      },
    ],
  );
});

test('inspect on a fresh home says there is nothing live', () => {
  const home = tempHome();
  const { code, stdout } = runCli(['inspect'], home.env);
  home.remove();
  assert.equal([code, stdout], [0, 'no live actors\n']);
});

test.run();
