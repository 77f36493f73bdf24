import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { InProcessBus } from '../../bus/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { startProjection, type Projection } from '../../store/log/projection.js';
import { tempHome } from '../support/temp-home.js';

/** Replies per session: what a history view would fold. */
const deltas: Projection<Record<string, string>> = {
  initial: () => ({}),
  apply: (state, e) =>
    e.type === 'provider.chunk' && e.session
      ? { ...state, [e.session]: (state[e.session] ?? '') + e.data.delta }
      : state,
  query: { type: 'provider.chunk' },
};

test('a projection folds the log, then stays current from the bus, counting every event once', async () => {
  const home = tempHome();
  const log = EventLog.open(home.sessions);
  const bus = new InProcessBus(log);
  bus.publish({ type: 'provider.chunk', session: 'a', data: { kind: 'text', delta: 'he' } });
  bus.publish({ type: 'provider.chunk', session: 'b', data: { kind: 'text', delta: 'x' } });
  bus.publish({ type: 'turn.aborted', session: 'a', data: { reason: 'ignored by the query' } });
  // Not yet committed when the projection starts: it must be folded once, from the log or the bus.
  bus.publish({ type: 'provider.chunk', session: 'a', data: { kind: 'text', delta: 'l' } });
  const view = await startProjection(log, bus, deltas);
  bus.publish({ type: 'provider.chunk', session: 'a', data: { kind: 'text', delta: 'lo' } });
  assert.equal(view.state, { a: 'hello', b: 'x' });
  assert.is(view.position, 5);
  view.stop();
  bus.publish({ type: 'provider.chunk', session: 'a', data: { kind: 'text', delta: '!' } });
  assert.equal(view.state, { a: 'hello', b: 'x' });
  await log.flushed();
  log.close();
  home.remove();
});

test.run();
