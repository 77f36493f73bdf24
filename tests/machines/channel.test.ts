import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initialTransition, transition } from 'xstate';
import { channelMachine, type ChannelEvent } from '../../machines/channel.js';

function after(events: Array<ChannelEvent['type']>): string {
  let [snapshot] = initialTransition(channelMachine);
  for (const type of events) [snapshot] = transition(channelMachine, snapshot, { type });
  return String(snapshot.value);
}

const cases: Array<[name: string, events: Array<ChannelEvent['type']>, state: string]> = [
  ['a channel starts stopped', [], 'stopped'],
  ['start, then connected', ['START', 'CONNECTED'], 'connected'],
  ['a failed start restarts after the backoff', ['START', 'FAILED', 'START'], 'starting'],
  ['a dropped connection fails', ['START', 'CONNECTED', 'FAILED'], 'failed'],
  ['a reconnect keeps it connected', ['START', 'CONNECTED', 'CONNECTED'], 'connected'],
  ['stop from any state', ['START', 'CONNECTED', 'STOP'], 'stopped'],
  ['stop while failed cancels the restart', ['START', 'FAILED', 'STOP'], 'stopped'],
  ['a stopped channel ignores a late CONNECTED', ['STOP', 'CONNECTED'], 'stopped'],
];

for (const [name, events, state] of cases) {
  test(`channel machine: ${name}`, () => assert.is(after(events), state));
}

test.run();
