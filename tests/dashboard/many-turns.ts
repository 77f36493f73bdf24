// A log of many finished web chat turns, spread over sessions, as the gateway records them: the turn's events and
// the moves of its turn and session actors. The machines test and `npm run bench -- --only launcher` use it.
import type { EventDraft } from '../../bus/index.js';
import type { Dashboard } from '../support/dashboard-harness.js';

const SETTINGS = {
  model_name: 'fast',
  stream: false,
  max_tool_iterations: 5,
  loop_detection: { enabled: false, repeat_threshold: 3, critical_threshold: 6, window_size: 20 },
};

/** Turn `i` (`t_many_<i>`, message `question <i>`) in session `sk_v1_many<i % sessions>`, one second apart. */
export function manyTurnDrafts(count: number, sessions: number, start: number): EventDraft[] {
  const drafts: EventDraft[] = [];
  const move = (keys: object, actor: string, machine: string, to: string, event: string, from?: string) =>
    drafts.push({
      ...keys,
      type: 'actor.transitioned',
      data: { actor, machine, to, event, ...(from ? { from } : {}) },
    } as EventDraft);
  for (let i = 0; i < count; i++) {
    const at = start + i * 1000;
    const chat = `direct:many${i % sessions}`;
    const keys = { agent: 'main', session: `sk_v1_many${i % sessions}`, turn: `t_many_${i}`, at };
    const session = `session:${keys.session}`;
    const turn = `turn:${keys.turn}`;
    const session_key = `v=1|agent=main|channel=pico|account=web|chat=${chat}`;
    drafts.push({
      ...keys,
      type: 'turn.started',
      data: { message_id: `m${i}`, channel: 'pico', chat, text: `question ${i}`, session_key, settings: SETTINGS },
    });
    if (i < sessions) move(keys, session, 'session', 'idle', 'xstate.init', 'loading');
    move(keys, session, 'session', 'handling', 'message.routed', 'idle');
    move(keys, turn, 'turn', 'building_prompt', 'xstate.init');
    move(keys, turn, 'turn', 'calling_model', 'prompt.built', 'building_prompt');
    move(keys, turn, 'turn', 'done', 'provider.responded', 'calling_model');
    drafts.push({ ...keys, type: 'actor.stopped', data: { actor: turn, machine: 'turn' } });
    drafts.push({ ...keys, type: 'turn.completed', data: { reply: `answer ${i}`, iterations: 1 } });
    move(keys, session, 'session', 'idle', 'turn.completed', 'handling');
  }
  return drafts;
}

/** Publishes them on the dashboard's gateway and waits until the log holds them. */
export async function seedManyTurns(dashboard: Dashboard, count: number, sessions: number): Promise<void> {
  for (const draft of manyTurnDrafts(count, sessions, Date.now() - count * 1000)) dashboard.host.publish(draft);
  await dashboard.host.log()?.committed();
}
