import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, fromPromise, waitFor, type Actor } from 'xstate';
import { BoardInspector } from '../../actors/board.js';
import type { ChatResponse, EventDraft } from '../../bus/index.js';
import {
  sessionBoard,
  sessionMachine,
  type CommandInput,
  type CommandOutput,
  type PrepareInput,
  type Prepared,
  type SessionKeys,
} from '../../machines/session.js';
import {
  turnMachine,
  type BuiltPrompt,
  type ModelInput,
  type PromptInput,
  type ToolInput,
  type ToolOutcome,
  type TurnHistory,
} from '../../machines/turn.js';
import { readHistory } from '../../store/log/history.js';
import { given, movesOf, type Stage } from '../support/actor-kit.js';

const keys = { agent: 'main', session: 's1' };
const settings = {
  model_name: 'fast',
  stream: false,
  max_tool_iterations: 5,
  loop_detection: { enabled: false, repeat_threshold: 3, critical_threshold: 5, window_size: 10 },
};

/**
 * The session machine as its actor, on a bus over a log of given events: its history loads from the log, chat
 * commands answer from a script, and its turns run the real turn machine against a model that answers from a script
 * (an answer it does not have yet keeps the turn waiting, as a slow model would).
 */
function session(stage: Stage, answers: ChatResponse[]) {
  const prompts: PromptInput[] = [];
  const waiting: Array<(answer: ChatResponse) => void> = [];
  /** The model's next answer: a scripted one now, or the one `reply` gives later (a stopped call waits no more). */
  const nextAnswer = ({ signal }: { signal: AbortSignal }): Promise<ChatResponse> => {
    const next = answers.shift();
    if (next) return Promise.resolve(next);
    return new Promise<ChatResponse>((resolve) => {
      waiting.push(resolve);
      signal.addEventListener('abort', () => waiting.splice(waiting.indexOf(resolve), 1));
    });
  };
  let turns = 0;
  const machine = sessionMachine.provide({
    actors: {
      loadHistory: fromPromise<TurnHistory, SessionKeys>(async ({ input }) => ({
        messages: readHistory(stage.log, input.session).messages.map((m) => m.message),
      })),
      runCommand: fromPromise<CommandOutput, CommandInput>(async ({ input }) =>
        input.message.data.text === '/clear'
          ? { command: 'clear', args: '', text: 'Conversation cleared.', effect: { type: 'clear' } }
          : { command: 'help', args: '', text: 'Commands: …' },
      ),
      prepareTurn: fromPromise<Prepared, PrepareInput>(async ({ input }) => ({
        keys: { ...input.keys, turn: `t${++turns}` },
        settings,
        message: {
          message_id: input.message.data.message_id,
          channel: 'cli',
          chat: 'direct:me',
          text: input.message.data.text,
          session_key: input.key,
          remote: false,
        },
        history: input.history,
      })),
      turn: turnMachine.provide({
        actors: {
          buildPrompt: fromPromise<BuiltPrompt, PromptInput>(async ({ input }) => {
            prompts.push(input);
            return {
              system: 'You are Tern.',
              messages: [...input.history.messages, { role: 'user', content: input.message.text }],
              tools: [],
            };
          }),
          callModel: fromPromise<ChatResponse, ModelInput>(nextAnswer),
          runTool: fromPromise<ToolOutcome, ToolInput>(async () => ({ ok: true, content: '' })),
        },
        actions: {
          record: ({ context }, record) =>
            void stage.bus.publish({ ...context.keys, type: record.type, data: record.data } as EventDraft),
        },
      }),
    },
    actions: { publish: (_, draft) => void stage.bus.publish(draft) },
    guards: { isCommand: (_, message) => message.data.text.startsWith('/') },
  });
  const actor = createActor(machine, {
    input: { keys, key: 'key-s1' },
    inspect: new BoardInspector(stage.bus, { session: sessionBoard }).inspect,
  });
  actor.start();
  const reply = (text: string): void => {
    const resolve = waiting.shift();
    if (resolve) resolve(answer(text));
    else answers.push(answer(text));
  };
  return { actor, prompts, reply };
}

let ids = 0;
const routed = (stage: Stage, text: string) =>
  stage.when({
    ...keys,
    type: 'message.routed',
    data: {
      message_id: `m${++ids}`,
      channel: 'cli',
      account: 'default',
      chat: 'direct:me',
      sender: 'me',
      text,
      session_key: 'key-s1',
      remote: false,
      media: [],
    },
  });
const message = (actor: Actor<typeof sessionMachine>, stage: Stage, text: string) =>
  actor.send({ type: 'MESSAGE', message: routed(stage, text) });
const answer = (text: string): ChatResponse => ({ text, tool_calls: [] });
const idle = (actor: Actor<typeof sessionMachine>) => waitFor(actor, (s) => s.value === 'idle');
const replies = (stage: Stage) =>
  stage.published.flatMap((e) => (e.type === 'reply.requested' ? [[e.data.outcome, e.data.text]] : []));

const test = suite('session machine as an actor (given events → when an event → then events)');

test(
  'given a history in the log, when a message comes, ' +
    'then its turn starts with that history and its reply is requested',
  async () => {
    const stage = given([
      {
        ...keys,
        type: 'turn.started',
        turn: 't0',
        data: { message_id: 'm0', channel: 'cli', chat: 'direct:me', text: 'earlier', session_key: 'key-s1', settings },
      },
      { ...keys, type: 'turn.completed', turn: 't0', data: { reply: 'an earlier answer', iterations: 1 } },
    ]);
    const { actor, prompts } = session(stage, [answer('hello back')]);
    message(actor, stage, 'hello');
    await idle(actor);
    assert.equal(
      prompts[0]?.history.messages.map((m) => m.content),
      ['earlier', 'an earlier answer'],
    );
    assert.equal(
      stage.then('turn.started', 'turn.completed', 'reply.requested').map(([type]) => type),
      ['turn.started', 'turn.completed', 'reply.requested'],
    );
    const reply = stage.published.find((e) => e.type === 'reply.requested');
    assert.equal(
      [reply?.turn, reply?.type === 'reply.requested' && reply.data],
      ['t1', { message_id: 'm1', outcome: 'completed', text: 'hello back', key: 'cli:m1:t1' }],
    );
    actor.stop();
  },
);

test(
  'when a second message comes during a turn, ' + 'then it waits (shown as queued) and runs after, in order',
  async () => {
    const stage = given();
    const { actor, reply } = session(stage, []);
    await waitFor(actor, (s) => s.value === 'idle');
    message(actor, stage, 'first');
    await waitFor(actor, (s) => s.matches({ handling: 'running' }));
    message(actor, stage, 'second');
    assert.is(actor.getSnapshot().context.queue.length, 2);
    actor.send({
      type: 'STOP',
      request: stage.when({ ...keys, type: 'turn.stop.requested', data: { message_id: 'stop1' } }),
      tasks: 0,
    });
    await waitFor(actor, (s) => s.matches({ handling: 'running' }) && s.context.queue.length === 1);
    reply('two');
    await idle(actor);
    assert.equal(replies(stage), [
      ['stopped', 'Stopped.'],
      ['completed', 'two'],
    ]);
    assert.ok(
      movesOf(stage.published, 'session:s1').includes('handling.running->handling.running MESSAGE'),
      'the queued message is a move of the shown context',
    );
    const queued = stage.published
      .filter((e) => e.type === 'actor.transitioned' && e.data.actor === 'session:s1')
      .map((e) => e.type === 'actor.transitioned' && e.data.context?.queued);
    assert.ok(queued.includes(1));
    actor.stop();
  },
);

test('when /stop comes with nothing running, then the sender hears so and nothing else moves', async () => {
  const stage = given();
  const { actor } = session(stage, []);
  await idle(actor);
  actor.send({
    type: 'STOP',
    request: stage.when({
      ...keys,
      type: 'turn.stop.requested',
      data: { message_id: 'stop1', reply: { channel: 'telegram', chat: 'direct:42', reply_to: '42' } },
    }),
    tasks: 0,
  });
  assert.equal(stage.then('reply.requested'), [
    [
      'reply.requested',
      {
        message_id: 'stop1',
        outcome: 'command',
        text: 'Nothing is running.',
        key: 'telegram:stop1:command',
        reply: { channel: 'telegram', chat: 'direct:42', reply_to: '42' },
      },
    ],
  ]);
  actor.stop();
});

test(
  'when the session is aborted during a turn, ' +
    'then the turn ends aborted and its message gets no reply (it stays open)',
  async () => {
    const stage = given();
    const { actor } = session(stage, []);
    message(actor, stage, 'slow');
    await waitFor(actor, (s) => s.matches({ handling: 'running' }));
    actor.send({ type: 'ABORT', reason: 'the process is shutting down' });
    await idle(actor);
    assert.equal(stage.then('turn.aborted', 'reply.requested'), [
      ['turn.aborted', { reason: 'the process is shutting down' }],
    ]);
    actor.stop();
  },
);

test(
  'when the message being handled is canceled, then its turn ends aborted, ' +
    'it is answered as aborted and the next message runs',
  async () => {
    const stage = given();
    const { actor, reply } = session(stage, []);
    message(actor, stage, 'slow');
    await waitFor(actor, (s) => s.matches({ handling: 'running' }));
    message(actor, stage, 'second');
    message(actor, stage, 'third');
    const queued = actor.getSnapshot().context.queue.map((m) => m.data.message_id);
    // A canceled message still waiting leaves the mailbox unrun; the one running is aborted.
    actor.send({ type: 'CANCEL', reason: 'interrupted (Ctrl-C)', message_id: queued[2]! });
    actor.send({ type: 'CANCEL', reason: 'interrupted (Ctrl-C)', message_id: queued[0]! });
    // Bounded: a session that ignores CANCEL never gets there, and the test fails instead of waiting for good.
    const next = (s: ReturnType<typeof actor.getSnapshot>): boolean =>
      s.matches({ handling: 'running' }) && s.context.queue.length === 1;
    await waitFor(actor, next, { timeout: 5_000 });
    reply('two');
    await idle(actor);
    assert.equal(stage.then('turn.aborted'), [['turn.aborted', { reason: 'interrupted (Ctrl-C)' }]]);
    assert.equal(
      stage.published.flatMap((e) =>
        e.type === 'reply.requested' ? [[e.data.message_id, e.data.outcome, e.data.text]] : [],
      ),
      [
        [queued[2], 'aborted', ''],
        [queued[0], 'aborted', ''],
        [queued[1], 'completed', 'two'],
      ],
    );
    actor.stop();
  },
);

test('when draining, then a queued message does not start', async () => {
  const stage = given();
  const { actor, reply } = session(stage, []);
  message(actor, stage, 'first');
  await waitFor(actor, (s) => s.matches({ handling: 'running' }));
  message(actor, stage, 'second');
  actor.send({ type: 'DRAIN' });
  reply('one');
  await idle(actor);
  assert.equal(replies(stage), [['completed', 'one']]);
  assert.equal(stage.then('turn.started').length, 1);
  actor.stop();
});

test(
  'when a chat command comes, then it is answered without a turn; ' + '/clear empties the history the next turn sees',
  async () => {
    const stage = given();
    const { actor, prompts } = session(stage, [answer('a'), answer('b')]);
    message(actor, stage, 'remember this');
    await idle(actor);
    message(actor, stage, '/clear');
    await idle(actor);
    message(actor, stage, 'what do you know?');
    await idle(actor);
    assert.equal(replies(stage), [
      ['completed', 'a'],
      ['command', 'Conversation cleared.'],
      ['completed', 'b'],
    ]);
    assert.equal(stage.then('session.cleared', 'command.handled'), [
      ['session.cleared', { session_key: 'key-s1' }],
      ['command.handled', { command: 'clear', args: '', reply: 'Conversation cleared.' }],
    ]);
    assert.equal(prompts[1]?.history.messages, []);
    actor.stop();
  },
);

test('when the agent wants the memory back, then an idle session leaves (a busy one stays)', async () => {
  const stage = given();
  const { actor } = session(stage, []);
  message(actor, stage, 'slow');
  await waitFor(actor, (s) => s.matches({ handling: 'running' }));
  actor.send({ type: 'EVICT' });
  assert.is(actor.getSnapshot().status, 'active');
  actor.send({ type: 'ABORT', reason: 'test' });
  await idle(actor);
  actor.send({ type: 'EVICT' });
  assert.equal([actor.getSnapshot().value, actor.getSnapshot().status], ['evicted', 'done']);
  assert.equal(
    stage.published.filter((e) => e.type === 'actor.stopped').map((e) => e.data),
    [{ actor: 'session:s1', machine: 'session', reason: 'idle' }],
  );
});

test.run();
