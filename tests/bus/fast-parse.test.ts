import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { InProcessBus, eventCatalogue, type EventType } from '../../bus/index.js';
import { compileFastParse, DECLINED } from '../../bus/fast-parse.js';

const session = `sk_v1_${'0'.repeat(64)}`;
const call = { id: 'c1', name: 'todo', arguments: { action: 'read', depth: 2, deep: { list: [1, 'two'] } } };

/** Data of each type as Tern publishes it, with every optional field and default in play somewhere. */
const samples: [EventType, unknown][] = [
  ['actor.transitioned', { actor: `session:${session}`, machine: 'session', from: 'idle', to: 'running', event: 'RECEIVED', context: { queued: 0, name: 'x', busy: false } }],
  ['actor.transitioned', { actor: 'turn:t1', machine: 'turn', to: 'building_prompt', event: 'xstate.init' }],
  ['actor.stopped', { actor: 'turn:t1', machine: 'turn', reason: 'completed' }],
  ['turn.started', { message_id: 'm1', channel: 'cli', chat: 'direct:s1', text: 'hi', session_key: 'v=1|agent=main', skill: 'pdf', settings: { model_name: 'fast', stream: false, max_tool_iterations: 20, loop_detection: { enabled: false, repeat_threshold: 3, critical_threshold: 6, window_size: 20 } } }],
  ['prompt.built', { system: '## Identity', tools: ['todo', 'exec'], messages: [
    { role: 'system', content: 's' },
    { role: 'user', content: 'turn 1' },
    { role: 'assistant', content: '', tool_calls: [call], reasoning: 'r', reasoning_signature: 'sig' },
    { role: 'tool', tool_call_id: 'c1', name: 'todo', content: '{}' },
    { role: 'assistant', content: 'done' },
  ] }],
  ['provider.requested', { model_name: 'fast', stream: false, iteration: 1, message_count: 11 }],
  ['provider.responded', { text: '', tool_calls: [{ ...call, signature: 'ts' }], usage: { input_tokens: 1, output_tokens: 0 }, finish_reason: 'tool_calls', iteration: 1 }],
  ['provider.failed', { code: 'rate_limit', message: 'slow down', status: 429, model_name: 'fast', key_index: 0 }],
  ['tool.requested', { call_id: 'c1', name: 'todo', arguments: call.arguments }],
  ['tool.completed', { call_id: 'c1', name: 'todo', ok: true, content: '{"todos":[]}' }],
  ['turn.completed', { reply: 'done', iterations: 2 }],
  ['message.received', { channel: 'cli', message_id: 'm1', chat: 'direct:me', sender: 'me', text: 'hi', mentioned: true, media: [{ kind: 'image', path: '/a.png' }] }],
  ['message.sent', { channel: 'cli', chat: 'direct:me', text: 'hi', send_key: 'k1' }],
  ['command.handled', { command: 'help' }],
  ['todo.written', { todos: [{ id: '1', content: 'plan', status: 'pending', priority: 'high' }] }],
];

/** Values that break one rule or another of a schema. */
const odd: unknown[] = [undefined, null, 0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60, '', 'x', true, {}, [], ['x'], { a: 1 }, new Date(0), Object.create(null)];

type Path = (string | number)[];

function pathsOf(value: unknown, at: Path = []): Path[] {
  if (value === null || typeof value !== 'object') return [at];
  const children = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return [at, ...children.flatMap((k) => pathsOf((value as Record<string | number, unknown>)[k], [...at, k]))];
}

/** A deep copy of `value` with `edit` applied to the container holding `path`. */
function changed(value: unknown, path: Path, edit: (parent: Record<string | number, unknown>, key: string | number) => void): unknown {
  const copy = structuredClone(value);
  if (path.length === 0) return copy;
  let parent = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  edit(parent, path[path.length - 1]!);
  return copy;
}

function mutations(sample: unknown): unknown[] {
  const out: unknown[] = [...odd];
  for (const path of pathsOf(sample)) {
    if (path.length === 0) continue;
    for (const value of odd) out.push(changed(sample, path, (parent, key) => void (parent[key] = value)));
    out.push(changed(sample, path, (parent, key) => void delete parent[key]));
    out.push(changed(sample, path, (parent) => void (parent.extra = 'unknown key')));
  }
  return out;
}

/** Values with object keys in order, so the comparison also checks the order zod gives keys. */
function ordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(ordered);
  if (value === null || typeof value !== 'object') return value;
  return Object.entries(value).map(([k, v]) => [k, ordered(v)]);
}

test('the types of a turn compile, and their events take the fast path with exactly what zod returns', () => {
  for (const [type, data] of samples) {
    const schema = eventCatalogue[type]();
    const parse = compileFastParse(schema);
    assert.ok(parse, type);
    const fast = parse(data);
    assert.is.not(fast, DECLINED, type);
    assert.equal(ordered(fast), ordered(schema.parse(data)), type);
  }
});

test('on any change to a valid event the fast path returns what zod returns, or declines; it declines whatever zod refuses', () => {
  let accepted = 0;
  let refused = 0;
  for (const [type, data] of samples) {
    const schema = eventCatalogue[type]();
    const parse = compileFastParse(schema)!;
    for (const input of mutations(data)) {
      const fast = parse(input);
      const zod = schema.safeParse(input);
      if (!zod.success) {
        refused++;
        assert.is(fast, DECLINED, `${type} ${JSON.stringify(input)}`);
      } else if (fast !== DECLINED) {
        accepted++;
        assert.equal(ordered(fast), ordered(zod.data), `${type} ${JSON.stringify(input)}`);
      }
    }
  }
  // Both sides of the comparison were exercised many times.
  assert.ok(accepted > 200 && refused > 1000, `${accepted} accepted, ${refused} refused`);
});

test('defaults are applied as zod applies them, each time a fresh value', () => {
  const parse = compileFastParse(eventCatalogue['message.sent']())!;
  const first = parse({ channel: 'cli', chat: 'c', text: 't', send_key: 'k' }) as { part: number; media: unknown[] };
  const second = parse({ channel: 'cli', chat: 'c', text: 't', send_key: 'k' }) as { part: number; media: unknown[] };
  assert.equal([first.part, first.media], [0, []]);
  assert.is.not(first.media, second.media);
});

test('schemas with rules it does not mirror are left to zod', () => {
  const unmirrored = [z.string().min(1), z.email(), z.int(), z.number().multipleOf(2), z.string().transform((s) => s.length), z.object({ a: z.string() }).strict(), z.array(z.string()).max(3), z.object({ a: z.string().refine((s) => s !== 'x') })];
  for (const schema of unmirrored) assert.is(compileFastParse(schema), undefined);
});

test('published data is a copy: a publisher changing its objects afterwards does not change the event', () => {
  const bus = new InProcessBus();
  const messages = [{ role: 'user' as const, content: 'hi' }];
  const envelope = bus.publish({ type: 'prompt.built', data: { system: 's', messages, tools: ['todo'] } });
  messages.push({ role: 'user', content: 'later' });
  messages[0]!.content = 'changed';
  assert.equal(envelope.data.messages, [{ role: 'user', content: 'hi' }]);
});

test('a process that forbids code generation from strings still publishes, validated by zod alone', () => {
  const bus = fileURLToPath(new URL('../../bus/index.ts', import.meta.url));
  const script = `import { InProcessBus } from ${JSON.stringify(bus)};
    const b = new InProcessBus();
    const e = b.publish({ type: 'actor.transitioned', data: { actor: 'turn:t1', machine: 'turn', to: 'done', event: 'x' } });
    let refused = '';
    try { b.publish({ type: 'actor.transitioned', data: { actor: 'turn:t1' } }); } catch (error) { refused = error.code; }
    console.log(JSON.stringify([e.seq, e.data.to, refused]));`;
  const run = spawnSync(process.execPath, ['--disallow-code-generation-from-strings', '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.is(run.status, 0, run.stderr);
  assert.equal(JSON.parse(run.stdout), [1, 'done', 'invalid_event']);
});

test.run();
