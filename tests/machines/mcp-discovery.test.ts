import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor } from 'xstate';
import { mcpDiscoveryMachine, unlockedTools, type McpDiscoveryEvent } from '../../machines/mcp-discovery.js';

type Announcement = { unlocked: string[]; ttl: number } | { hidden: string[] };

function start(ttl: number) {
  const announced: Announcement[] = [];
  const actor = createActor(
    mcpDiscoveryMachine.provide({
      actions: {
        announceUnlocked: (_, params) => void announced.push({ unlocked: params.tools, ttl: params.ttl }),
        announceHidden: (_, params) => void announced.push({ hidden: params.tools }),
      },
    }),
    { input: { ttl } },
  ).start();
  const send = (...events: McpDiscoveryEvent[]) => events.forEach((event) => actor.send(event));
  const view = () => ({ state: actor.getSnapshot().value, unlocked: actor.getSnapshot().context.unlocked });
  return { actor, announced, send, view };
}

const turn: McpDiscoveryEvent = { type: 'TURN_ENDED' };

test('everything starts hidden', () => {
  const { view, actor } = start(5);
  assert.equal(view(), { state: 'allHidden', unlocked: {} });
  assert.equal(unlockedTools(actor.getSnapshot().context), new Set());
});

test('allHidden --FOUND--> someUnlocked: the found tools are unlocked for ttl turns and announced', () => {
  const { view, send, announced } = start(3);
  send({ type: 'FOUND', tools: ['mcp_a_x', 'mcp_a_y'] });
  assert.equal(view(), { state: 'someUnlocked', unlocked: { mcp_a_x: 3, mcp_a_y: 3 } });
  assert.equal(announced, [{ unlocked: ['mcp_a_x', 'mcp_a_y'], ttl: 3 }]);
});

test('allHidden --FOUND with nothing--> allHidden, silently', () => {
  const { view, send, announced } = start(3);
  send({ type: 'FOUND', tools: [] });
  assert.equal(view(), { state: 'allHidden', unlocked: {} });
  assert.equal(announced, []);
});

test('allHidden ignores TURN_ENDED and SESSION_CLEARED', () => {
  const { view, send, announced } = start(3);
  send(turn, { type: 'SESSION_CLEARED' });
  assert.equal(view(), { state: 'allHidden', unlocked: {} });
  assert.equal(announced, []);
});

test('someUnlocked --TURN_ENDED--> someUnlocked while turns remain, announcing nothing', () => {
  const { view, send, announced } = start(3);
  send({ type: 'FOUND', tools: ['t'] }, turn, turn);
  assert.equal(view(), { state: 'someUnlocked', unlocked: { t: 1 } });
  assert.equal(announced.length, 1);
});

test('someUnlocked --TURN_ENDED on the last turn--> allHidden, announcing the hidden tools', () => {
  const { view, send, announced } = start(3);
  send({ type: 'FOUND', tools: ['t'] }, turn, turn, turn);
  assert.equal(view(), { state: 'allHidden', unlocked: {} });
  assert.equal(announced, [{ unlocked: ['t'], ttl: 3 }, { hidden: ['t'] }]);
});

test('a ttl of 1 hides the tool when the turn that found it ends', () => {
  const { view, send } = start(1);
  send({ type: 'FOUND', tools: ['t'] }, turn);
  assert.equal(view(), { state: 'allHidden', unlocked: {} });
});

test('tools found at different turns expire separately', () => {
  const { view, send, announced } = start(2);
  send({ type: 'FOUND', tools: ['early'] }, turn, { type: 'FOUND', tools: ['late'] }, turn);
  assert.equal(view(), { state: 'someUnlocked', unlocked: { late: 1 } });
  send(turn);
  assert.equal(view(), { state: 'allHidden', unlocked: {} });
  assert.equal(announced, [
    { unlocked: ['early'], ttl: 2 },
    { unlocked: ['late'], ttl: 2 },
    { hidden: ['early'] },
    { hidden: ['late'] },
  ]);
});

test('someUnlocked --FOUND again--> the count starts afresh', () => {
  const { view, send } = start(3);
  send({ type: 'FOUND', tools: ['t'] }, turn, turn, { type: 'FOUND', tools: ['t'] });
  assert.equal(view(), { state: 'someUnlocked', unlocked: { t: 3 } });
});

test('someUnlocked --FOUND with nothing--> unchanged', () => {
  const { view, send, announced } = start(3);
  send({ type: 'FOUND', tools: ['t'] }, { type: 'FOUND', tools: [] });
  assert.equal(view(), { state: 'someUnlocked', unlocked: { t: 3 } });
  assert.equal(announced.length, 1);
});

test('someUnlocked --SESSION_CLEARED--> allHidden, announcing every unlocked tool', () => {
  const { view, send, announced } = start(3);
  send({ type: 'FOUND', tools: ['a', 'b'] }, { type: 'SESSION_CLEARED' });
  assert.equal(view(), { state: 'allHidden', unlocked: {} });
  assert.equal(announced.at(-1), { hidden: ['a', 'b'] });
});

test.run();
