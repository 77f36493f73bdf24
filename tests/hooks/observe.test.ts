import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ProcessHook } from '../../adapters/hooks/process-hook.js';

const hook = (observe?: string[]) =>
  new ProcessHook({ name: 'h', priority: 0, command: ['true'], env: {}, observe, intercept: [] }, { log: () => {} });

test(
  'observe: absent is no observer, [] / * / all is every event, ' + "globs and the peer runtime's kind names work",
  () => {
    assert.is(hook().observes('turn.started'), false);
    for (const all of [[], ['*'], ['all']]) assert.is(hook(all).observes('provider.chunk'), true, JSON.stringify(all));
    const some = hook(['tool.*', 'turn_end', 'llm_response']);
    assert.equal(
      [
        'tool.requested',
        'tool.completed',
        'turn.completed',
        'turn.failed',
        'provider.responded',
        'turn.started',
        'provider.chunk',
      ].map((t) => some.observes(t)),
      [true, true, true, true, true, false, false],
    );
  },
);

test.run();
