import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import type { ActorView, SessionRow, Transcript, TurnRow } from '../../bus/api-shapes.js';
import type { LiveFrame } from '../../adapters/launcher/live.js';
import type { Envelope } from '../../bus/index.js';
import { call, errorBody } from '../launcher/launcher-harness.js';
import { chatSocket, replyStreamed, startDashboard, type Dashboard, type Frame } from '../support/dashboard-harness.js';
import { eventually } from '../support/eventually.js';
import { completionStreamText, sse } from '../support/vendor-chat-completions.js';

const get = async <T>(dashboard: Dashboard, path: string): Promise<T> =>
  (await call(dashboard.launcher, path, { cookie: dashboard.cookie })).body as T;

const toolCall = (id: string, name: string, args: Record<string, unknown>, text = '') =>
  sse([
    completionStreamText(
      [
        ...(text ? [{ content: text }] : []),
        { tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] },
      ],
      'tool_calls',
    ),
  ]);

test(
  "/api/chat/history: the web chat's conversation as the model sees it, " +
    "each turn's steps (text between calls, tool calls with results), empty after /clear",
  async () => {
    const dashboard = await startDashboard();
    try {
      const chat = await chatSocket(dashboard);
      replyStreamed(dashboard.vendor, ['Hi ', 'there']);
      await chat.send('hello', 'webhist');
      dashboard.vendor.reply(toolCall('call_1', 'list_dir', { path: '.' }, 'Looking first.'));
      replyStreamed(dashboard.vendor, ['Done looking.']);
      await chat.send('look around', 'webhist');
      const history = await get<Transcript>(dashboard, '/api/chat/history?session_id=webhist');
      const started = (
        await get<{ events: Array<Envelope<'turn.started'>> }>(dashboard, '/api/events?type=turn.started&order=asc')
      ).events;
      const [first, second] = started.map((e) => e.turn ?? '');
      assert.is(history.session, started[0]?.session);
      assert.equal(
        history.messages.map((m) => [m.message.role, m.message.content, m.turn, m.outcome ?? null]),
        [
          ['user', 'hello', first, null],
          ['assistant', 'Hi there', first, 'completed'],
          ['user', 'look around', second, null],
          ['assistant', 'Done looking.', second, 'completed'],
        ],
      );
      const listed = (
        await get<{ events: Array<Envelope<'tool.completed'>> }>(
          dashboard,
          `/api/events?turn=${second}&type=tool.completed`,
        )
      ).events[0];
      assert.equal(history.steps, {
        [first ?? '']: [],
        [second ?? '']: [
          { kind: 'text', text: 'Looking first.' },
          {
            kind: 'tool',
            call_id: 'call_1',
            name: 'list_dir',
            arguments: '{"path":"."}',
            ok: true,
            content: listed?.data.content,
            chars: listed?.data.content.length,
          },
        ],
      });
      assert.equal(await get(dashboard, '/api/chat/history?session_id=nobody'), {
        session: null,
        summary: null,
        messages: [],
        steps: {},
      });
      assert.equal(
        await get(dashboard, '/api/chat/history?session_id=a%20b'),
        errorBody('bad_query', 'session_id must be 1–64 letters, digits, _ or -'),
      );

      await chat.send('/clear', 'webhist');
      chat.socket.close();
      assert.equal(
        (await get<Transcript>(dashboard, '/api/chat/history?session_id=webhist')).messages,
        [],
        'the model forgot it, so the page does too',
      );
    } finally {
      await dashboard.close();
    }
  },
);

test(
  '/api/sessions lists each session by channel, chat, ' +
    'sender and agent with counts and tokens; a session lists its turns',
  async () => {
    const dashboard = await startDashboard();
    try {
      const chat = await chatSocket(dashboard);
      replyStreamed(dashboard.vendor, ['one']);
      await chat.send('first', 'webrows');
      dashboard.vendor.reply(toolCall('call_1', 'list_dir', { path: '.' }));
      replyStreamed(dashboard.vendor, ['two']);
      await chat.send('second', 'webrows');
      chat.socket.close();
      const { sessions } = await get<{ sessions: SessionRow[] }>(dashboard, '/api/sessions');
      const started = (
        await get<{ events: Array<Envelope<'turn.started'>> }>(dashboard, '/api/events?type=turn.started&order=asc')
      ).events;
      const row = sessions[0];
      assert.equal(sessions.length, 1);
      assert.equal(
        { ...row, first_at: 0, last_at: 0 },
        {
          session: started[0]?.session,
          session_key: 'v=1|agent=main|channel=pico|account=web|chat=direct:webrows',
          agent: 'main',
          channel: 'pico',
          chat: 'direct:webrows',
          sender: 'web',
          turns: 2,
          messages: 4,
          model_calls: 3,
          input_tokens: 36,
          cached_input_tokens: 0,
          output_tokens: 15,
          cost_usd: 0,
          unpriced_calls: 3,
          unreported_calls: 0,
          first_at: 0,
          last_at: 0,
          last_turn: started[1]?.turn,
          last_text: 'two',
        },
      );
      const detail = await get<{ about: SessionRow; turns: TurnRow[]; messages: unknown[] }>(
        dashboard,
        `/api/sessions/${row?.session}`,
      );
      assert.equal(detail.about, row);
      assert.equal(
        detail.turns.map((t) => [
          t.turn,
          t.text,
          t.outcome,
          t.model_calls,
          t.input_tokens,
          t.output_tokens,
          t.cost_usd,
          t.unpriced_calls,
        ]),
        [
          [started[1]?.turn, 'second', 'completed', 2, 24, 10, 0, 2],
          [started[0]?.turn, 'first', 'completed', 1, 12, 5, 0, 1],
        ],
      );
      assert.is(detail.messages.length, 4);
      assert.equal(
        await get(dashboard, '/api/sessions/sk_v1_missing'),
        errorBody('session_not_found', 'no session sk_v1_missing in the event log'),
      );
    } finally {
      await dashboard.close();
    }
  },
);

test(
  '/api/actors places each actor in the tree (turn → session → agent → gateway), ' +
    "with the session's key, the turn's message and each move's origin",
  async () => {
    const dashboard = await startDashboard();
    try {
      const chat = await chatSocket(dashboard);
      replyStreamed(dashboard.vendor, ['hi']);
      await chat.send('hello tree', 'webtree');
      chat.socket.close();
      const { actors } = await get<{ actors: Array<Omit<ActorView, 'history'> & { from?: string }> }>(
        dashboard,
        '/api/actors',
      );
      const [started] = (
        await get<{ events: Array<Envelope<'turn.started'>> }>(dashboard, '/api/events?type=turn.started')
      ).events;
      const byMachine = Object.fromEntries(actors.map((a) => [a.machine, a]));
      assert.equal(
        [byMachine.turn?.parent, byMachine.turn?.text, byMachine.turn?.from, byMachine.turn?.state],
        [`session:${started?.session}`, 'hello tree', 'calling_model', 'done'],
      );
      assert.equal(
        [byMachine.session?.parent, byMachine.session?.session_key],
        ['agent:main', 'v=1|agent=main|channel=pico|account=web|chat=direct:webtree'],
      );
      assert.equal(
        [byMachine.agent?.parent, byMachine.channel?.parent, byMachine.heartbeat?.parent, byMachine.gateway?.parent],
        ['gateway', 'gateway', 'gateway', undefined],
      );
    } finally {
      await dashboard.close();
    }
  },
);

test(
  '/api/machines: each chart lists its moves with their ' + 'targets and guards, read from the machine definition',
  async () => {
    const dashboard = await startDashboard();
    try {
      type Chart = {
        initial?: string;
        transitions: Array<{ event: string; target?: string; guards: string[] }>;
        states: Array<{
          key: string;
          final: boolean;
          transitions: Array<{ event: string; target?: string; guards: string[] }>;
        }>;
      };
      const { machines } = await get<{ machines: Record<string, Chart> }>(dashboard, '/api/machines');
      const turn = machines.turn;
      assert.is(turn?.initial, 'building_prompt');
      assert.equal(
        turn?.transitions.map((t) => [t.event, t.target]),
        [
          ['STOP', 'stopped'],
          ['ABORT', 'aborted'],
        ],
      );
      // The model call is an invoked actor: its answer is the actor's done event, its failure its error event.
      assert.equal(turn?.states.find((s) => s.key === 'calling_model')?.transitions, [
        { event: 'xstate.done.actor.model', target: 'running_tool', guards: ['callsUnchecked'] },
        { event: 'xstate.done.actor.model', target: 'checking_call', guards: ['hasToolCalls'] },
        { event: 'xstate.done.actor.model', target: 'done', guards: [] },
        { event: 'xstate.error.actor.model', target: 'failed', guards: [] },
      ]);
      assert.equal(turn?.states.find((s) => s.key === 'checking_call')?.transitions, [
        { event: 'LOOP_CHECKED', target: 'stopped', guards: ['loopStops'] },
        { event: 'LOOP_CHECKED', target: 'running_tool', guards: [] },
      ]);
      assert.equal(
        machines.gateway?.states.map((s) => [s.key, s.final, s.transitions.map((t) => `${t.event}>${t.target}`)]),
        [
          ['starting', false, ['xstate.done.actor.start>running', 'xstate.error.actor.start>stopped']],
          // A stop while the engine loads is noted and waits for the load (no target); channels a plugin adds join.
          ['running', false, ['STOP>undefined', 'STOP>draining', 'ADD_CHANNELS>undefined']],
          // Draining moves between its own states (turns, then children): none of its moves is at its top.
          ['draining', false, []],
          ['stopped', true, []],
        ],
      );
    } finally {
      await dashboard.close();
    }
  },
);

test(
  "/api/live says the gateway's status first and at each change: " +
    'a restart streams stopping, stopped, starting, running',
  async () => {
    const dashboard = await startDashboard();
    const socket = new WebSocket(`${dashboard.launcher.url.replace('http', 'ws')}/api/live`, {
      headers: { cookie: dashboard.cookie, origin: dashboard.launcher.url },
    });
    try {
      const states: string[] = [];
      socket.on('message', (data) => {
        const frame = JSON.parse(String(data)) as LiveFrame;
        if (frame.type === 'gateway') states.push(frame.status.state);
      });
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      await dashboard.host.requestGateway('restart', 'test');
      const expected = ['running', 'stopping', 'stopped', 'starting', 'running'];
      assert.equal(await eventually(() => [...states], expected), expected);
    } finally {
      socket.close();
      await dashboard.close();
    }
  },
);

test(
  "a chat socket that pings with a session id gets that session's replies, " +
    'so a reopened page sees a turn that was running',
  async () => {
    const dashboard = await startDashboard();
    const url = `${dashboard.launcher.url.replace('http', 'ws')}/pico/ws`;
    const watcher = new WebSocket(url, { headers: { cookie: dashboard.cookie, origin: dashboard.launcher.url } });
    try {
      const seen: Frame[] = [];
      watcher.on('message', (data) => seen.push(JSON.parse(String(data)) as Frame));
      await new Promise((resolve, reject) => watcher.once('open', resolve).once('error', reject));
      watcher.send(JSON.stringify({ type: 'ping', id: 'p1', session_id: 'webjoin', payload: {} }));
      const chat = await chatSocket(dashboard);
      replyStreamed(dashboard.vendor, ['Seen ', 'twice']);
      await chat.send('hello', 'webjoin');
      chat.socket.close();
      assert.equal(seen[0], {
        type: 'pong',
        id: 'p1',
        session_id: 'webjoin',
        timestamp: (seen[0] as { timestamp?: number }).timestamp,
        payload: {},
      } as Frame);
      assert.equal(
        seen.slice(1).map((f) => [f.type, f.payload.content ?? null]),
        [
          ['typing.start', null],
          ['message.create', 'Seen '],
          ['message.update', 'Seen twice'],
          ['typing.stop', null],
        ],
      );
    } finally {
      watcher.close();
      await dashboard.close();
    }
  },
);

test(
  "exec runs from the dashboard chat (the owner's local channel); " +
    'an entry with settings.trusted false is remote and exec is refused',
  async () => {
    for (const [trusted, ok] of [
      [undefined, true],
      [false, false],
    ] as const) {
      const settings = { streaming: { enabled: true }, ...(trusted === undefined ? {} : { trusted }) };
      const dashboard = await startDashboard({ channels: { web: { enabled: true, type: 'pico', settings } } });
      try {
        dashboard.vendor.reply(toolCall('call_1', 'exec', { command: 'echo from-the-dashboard' }));
        replyStreamed(dashboard.vendor, ['ran']);
        const chat = await chatSocket(dashboard);
        await chat.send('run it');
        chat.socket.close();
        const [completed] = (
          await get<{ events: Array<Envelope<'tool.completed'>> }>(dashboard, '/api/events?type=tool.completed')
        ).events;
        assert.is(completed?.data.ok, ok, `trusted ${String(trusted)}: ${completed?.data.content}`);
        if (ok) assert.match(completed?.data.content ?? '', 'from-the-dashboard');
        else assert.match(completed?.data.content ?? '', 'exec is not allowed from remote channels');
      } finally {
        await dashboard.close();
      }
    }
  },
);

test.run();
