import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rerunTurn } from '../../actors/replay.js';
import type { Envelope } from '../../bus/index.js';

// Turns recorded by the build before the bus carried the work (#21): logs written then must still rerun identical.
const fixture = JSON.parse(readFileSync(new URL('../fixtures/replay-turns-v1.json', import.meta.url), 'utf8')) as {
  turns: Array<{ name: string; events: Envelope[] }>;
};

for (const { name, events } of fixture.turns) {
  test(`a turn recorded before #21 reruns identical: ${name}`, async () => {
    const result = await rerunTurn(events);
    assert.equal(result.identical, true, JSON.stringify(result));
  });
}

test.run();
