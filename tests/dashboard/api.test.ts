import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Envelope } from '../../bus/index.js';
import { call, errorBody } from '../launcher/launcher-harness.js';
import { API_KEY, chatSocket, replyStreamed, startDashboard, type Dashboard } from '../support/dashboard-harness.js';
import { withoutTime } from '../support/user-time.js';

/** One chat turn over /pico/ws; returns its turn id. */
async function chatTurn(dashboard: Dashboard, text: string, reply: string[]): Promise<string> {
  const chat = await chatSocket(dashboard);
  replyStreamed(dashboard.vendor, reply);
  await chat.send(text);
  chat.socket.close();
  const events = (await call(dashboard.launcher, '/api/events?type=turn.started&limit=1', { cookie: dashboard.cookie }))
    .body as { events: Envelope[] };
  return events.events[0]?.turn ?? '';
}

const ROUTES: Array<[string, string]> = [
  ['GET', '/api/config'],
  ['PUT', '/api/config'],
  ['GET', '/api/sessions'],
  ['GET', '/api/sessions/x'],
  ['POST', '/api/sessions/x/clear'],
  ['GET', '/api/events'],
  ['GET', '/api/turns/t'],
  ['POST', '/api/turns/t/rerun'],
  ['GET', '/api/actors'],
  ['GET', '/api/actors/a'],
  ['GET', '/api/machines'],
  ['GET', '/api/gateway/status'],
  ['POST', '/api/gateway/start'],
  ['POST', '/api/gateway/stop'],
  ['POST', '/api/gateway/restart'],
  ['GET', '/api/logs'],
  ['GET', '/api/models'],
  ['GET', '/api/tools'],
  ['GET', '/api/skills'],
  ['GET', '/api/mcp'],
  ['GET', '/api/cron'],
  ['GET', '/dist/app.js'],
];

test(
  'every dashboard route answers 401 JSON without a ' + 'session (the dashboard bundle redirects to sign in)',
  async () => {
    const dashboard = await startDashboard();
    try {
      for (const [method, path] of ROUTES) {
        const reply = await call(dashboard.launcher, path, { method, ...(method === 'GET' ? {} : { json: {} }) });
        if (path.startsWith('/api/'))
          assert.equal(
            [reply.status, reply.body],
            [401, errorBody('unauthenticated', 'sign in at /launcher-login first')],
            `${method} ${path}`,
          );
        else assert.equal([reply.status, reply.headers.get('location')], [302, '/launcher-login'], path);
      }
    } finally {
      await dashboard.close();
    }
  },
);

test('a chat turn shows up in events, the session list and history, its timeline, and reruns identical', async () => {
  const dashboard = await startDashboard();
  const get = (path: string) => call(dashboard.launcher, path, { cookie: dashboard.cookie });
  try {
    const turn = await chatTurn(dashboard, 'hello', ['Hi ', 'you']);
    const byTurn = (await get(`/api/events?turn=${turn}&order=asc`)).body as { events: Envelope[] };
    // The streamed message is created and edited as the chunks arrive (`message.*`), at the channel's pace.
    const types = byTurn.events.map((e) => e.type).filter((t) => !t.startsWith('actor.') && !t.startsWith('message.'));
    assert.equal(types, [
      'turn.started',
      'prompt.built',
      'provider.requested',
      'provider.chunk',
      'provider.chunk',
      'provider.responded',
      'turn.completed',
      'reply.requested',
      'reply.delivered',
    ]);

    const timeline = (await get(`/api/turns/${turn}`)).body as { spans: Array<{ kind: string; label: string }> };
    assert.equal(
      timeline.spans.map((s) => [s.kind, s.label]),
      [
        ['prompt', 'building prompt'],
        ['model', 'model call 1'],
        ['chunks', '2 chunks'],
      ],
    );
    const rerun = await call(dashboard.launcher, `/api/turns/${turn}/rerun`, { cookie: dashboard.cookie, json: {} });
    assert.equal([rerun.status, (rerun.body as { identical: boolean }).identical], [200, true]);
    assert.equal(
      (await get('/api/turns/t_missing')).body,
      errorBody('turn_not_found', 'no turn t_missing in the event log'),
    );

    const sessions = (
      (await get('/api/sessions')).body as {
        sessions: Array<{ session: string; channel: string; turns: number; messages: number; last_text: string }>;
      }
    ).sessions;
    assert.equal(
      sessions.map((s) => [s.channel, s.turns, s.messages, s.last_text]),
      [['pico', 1, 2, 'Hi you']],
    );
    const session = sessions[0]?.session ?? '';
    const history = (await get(`/api/sessions/${session}`)).body as {
      messages: Array<{ message: { role: string; content: string } }>;
    };
    assert.equal(
      history.messages.map((m) => [m.message.role, m.message.content]),
      [
        ['user', 'hello'],
        ['assistant', 'Hi you'],
      ],
    );
    const cleared = await call(dashboard.launcher, `/api/sessions/${session}/clear`, {
      cookie: dashboard.cookie,
      json: {},
    });
    assert.is(cleared.status, 200);
    assert.equal(((await get(`/api/sessions/${session}`)).body as { messages: unknown[] }).messages, []);
    const next = await chatTurn(dashboard, 'fresh start', ['ok']);
    const prompt = (
      (await get(`/api/events?turn=${next}&type=prompt.built`)).body as { events: Array<Envelope<'prompt.built'>> }
    ).events[0];
    assert.equal(
      prompt?.data.messages.map((m) => ({ ...m, content: withoutTime(String(m.content)) })),
      [{ role: 'user', content: 'fresh start' }],
      'the session forgot the cleared turns',
    );

    const actors = (await get('/api/actors')).body as {
      gateway: { state: string };
      actors: Array<{ actor: string; machine: string; state: string; turn?: string }>;
    };
    assert.is(actors.gateway.state, 'running');
    const turnActor = actors.actors.find((a) => a.turn === turn);
    assert.equal([turnActor?.machine, turnActor?.state], ['turn', 'done']);
    const detail = (await get(`/api/actors/${turnActor?.actor ?? ''}`)).body as {
      chart: { key: string; states: Array<{ key: string }> };
      history: Array<{ to: string }>;
    };
    assert.is(detail.chart.key, 'turn');
    assert.ok(detail.chart.states.some((s) => s.key === 'calling_model'));
    assert.is(detail.history[detail.history.length - 1]?.to, 'done');
  } finally {
    await dashboard.close();
  }
});

test('bad /api/events parameters answer 400 naming the parameter', async () => {
  const dashboard = await startDashboard();
  try {
    const cases: Array<[string, string]> = [
      ['limit=0', 'limit must be from 1 to 1000'],
      ['limit=5000', 'limit must be from 1 to 1000'],
      ['limit=ten', 'limit must be a whole number'],
      ['after=-1', 'after must be a whole number'],
      ['since=yesterday', 'since must be a whole number'],
      ['order=up', 'order must be asc or desc'],
      ['type=<script>', 'type must be an event type or pattern such as provider.* (allowed: a-z _ . * ,)'],
      ['colour=red', 'unknown parameter colour'],
      ['turn=a&turn=b', 'turn may be given once, as plain text'],
    ];
    for (const [query, message] of cases) {
      const reply = await call(dashboard.launcher, `/api/events?${query}`, { cookie: dashboard.cookie });
      assert.equal([reply.status, reply.body], [400, errorBody('bad_query', message)], query);
    }
    const logs = await call(dashboard.launcher, '/api/logs?level=loud', { cookie: dashboard.cookie });
    assert.equal(
      [logs.status, logs.body],
      [400, errorBody('bad_query', 'level must be one of debug, info, warn, error, fatal')],
    );
  } finally {
    await dashboard.close();
  }
});

test(
  'config: GET masks secrets, PUT keeps a secret sent back masked, ' +
    'refuses invalid values with the problems, and saves new ones',
  async () => {
    const dashboard = await startDashboard();
    const file = join(dashboard.home.home, 'config.json');
    const onDisk = () =>
      JSON.parse(readFileSync(file, 'utf8')) as { model_list: Array<{ api_keys: string[]; model: string }> };
    try {
      const shown = (await call(dashboard.launcher, '/api/config', { cookie: dashboard.cookie })).body as {
        config: { model_list: Array<{ api_keys: string[]; model: string }> };
      };
      assert.equal(shown.config.model_list[0]?.api_keys, ['sk-t…01']);
      assert.not.match(JSON.stringify(shown), API_KEY);

      const edited = structuredClone(shown.config);
      edited.model_list[0]!.model = 'gpt-other';
      const saved = await call(dashboard.launcher, '/api/config', {
        method: 'PUT',
        cookie: dashboard.cookie,
        json: { config: edited },
      });
      assert.is(saved.status, 200);
      assert.not.match(saved.text, API_KEY);
      assert.equal([onDisk().model_list[0]?.model, onDisk().model_list[0]?.api_keys], ['gpt-other', [API_KEY]]);

      const invalid = { ...edited, agents: { defaults: { model: 'fast', max_tool_iterations: -3 } } };
      const refused = await call(dashboard.launcher, '/api/config', {
        method: 'PUT',
        cookie: dashboard.cookie,
        json: { config: invalid },
      });
      const body = refused.body as { error: { code: string }; issues: string[] };
      assert.equal([refused.status, body.error.code], [400, 'config_invalid']);
      assert.ok(
        body.issues.some((issue) => issue.startsWith('agents.defaults.max_tool_iterations')),
        body.issues.join('\n'),
      );
      assert.is(onDisk().model_list[0]?.model, 'gpt-other');

      edited.model_list[0]!.api_keys = ['sk-new-key-000000002'];
      await call(dashboard.launcher, '/api/config', {
        method: 'PUT',
        cookie: dashboard.cookie,
        json: { config: edited },
      });
      assert.equal(onDisk().model_list[0]?.api_keys, ['sk-new-key-000000002']);

      const noBody = await call(dashboard.launcher, '/api/config', {
        method: 'PUT',
        cookie: dashboard.cookie,
        json: { settings: {} },
      });
      assert.equal([noBody.status, noBody.body], [400, errorBody('invalid_body', 'send {"config": {...}} as JSON')]);
    } finally {
      await dashboard.close();
    }
  },
);

test(
  'gateway stop, start and restart answer with the state, ' +
    'a request published on the bus is answered; while stopped the log is still read',
  async () => {
    const dashboard = await startDashboard();
    const post = (action: string) =>
      call(dashboard.launcher, `/api/gateway/${action}`, { cookie: dashboard.cookie, json: {} });
    const state = async () =>
      ((await call(dashboard.launcher, '/api/gateway/status', { cookie: dashboard.cookie })).body as { state: string })
        .state;
    try {
      assert.is(await state(), 'running');
      assert.is(((await post('stop')).body as { state: string }).state, 'stopped');
      const stopped = await call(dashboard.launcher, '/api/events?type=gateway.*&order=asc', {
        cookie: dashboard.cookie,
      });
      assert.equal(
        [stopped.status, (stopped.body as { events: Envelope[] }).events.map((e) => e.type)],
        [200, ['gateway.started', 'gateway.stop.requested', 'gateway.stopping']],
        "the stopped gateway's log is still read",
      );
      assert.is(((await post('start')).body as { state: string }).state, 'running');
      assert.is(((await post('restart')).body as { state: string }).state, 'running');
      const log = (
        (await call(dashboard.launcher, '/api/events?type=gateway.*&order=asc', { cookie: dashboard.cookie })).body as {
          events: Envelope[];
        }
      ).events;
      assert.equal(
        log.map((e) => e.type),
        [
          'gateway.started',
          'gateway.stop.requested',
          'gateway.stopping',
          'gateway.started',
          'gateway.restart.requested',
          'gateway.stopping',
          'gateway.started',
        ],
      );
      assert.equal([(await post('jump')).status], [404]);

      const seen = log.length;
      dashboard.host.publish({ type: 'gateway.stop.requested', data: { by: 'another actor' } });
      await dashboard.host.requestGateway('start', 'test');
      const answered = (
        (await call(dashboard.launcher, '/api/events?type=gateway.*&order=asc', { cookie: dashboard.cookie })).body as {
          events: Envelope[];
        }
      ).events;
      assert.equal(
        answered.slice(seen).map((e) => e.type),
        // The stop begins as its request arrives; the start asked for meanwhile waits for it to end.
        ['gateway.stop.requested', 'gateway.stopping', 'gateway.start.requested', 'gateway.started'],
        'a request published on the bus is answered',
      );

      writeFileSync(
        join(dashboard.home.home, 'config.json'),
        JSON.stringify({ version: 2, agents: { defaults: { max_tool_iterations: -1 } } }),
      );
      const failed = (await post('restart')).body as { state: string; failure?: string };
      assert.is(failed.state, 'stopped');
      assert.match(failed.failure ?? '', 'agents.defaults.max_tool_iterations');
    } finally {
      await dashboard.close();
    }
  },
);

test('models, tools, skills, mcp, cron and logs answer JSON with secrets masked', async () => {
  const dashboard = await startDashboard();
  const get = (path: string) => call(dashboard.launcher, path, { cookie: dashboard.cookie });
  try {
    const models = (await get('/api/models')).body as { models: Array<{ model_name: string; masked_keys: string[] }> };
    assert.equal(
      models.models.map((m) => m.model_name),
      ['fast'],
    );
    assert.not.match(JSON.stringify(models), API_KEY);
    const tools = (await get('/api/tools')).body as { tools: Array<{ name: string }> };
    assert.ok(
      tools.tools.some((t) => t.name === 'read_file'),
      JSON.stringify(tools.tools.map((t) => t.name)),
    );
    for (const kind of ['skills', 'mcp', 'cron']) {
      const reply = await get(`/api/${kind}`);
      assert.equal([reply.status, Array.isArray((reply.body as Record<string, unknown>)[kind])], [200, true], kind);
    }
    const warnings = await get('/api/logs?level=warn&lines=10');
    assert.equal([warnings.status, (warnings.body as { lines: string[] }).lines], [200, []]);
    const info = (await get('/api/logs?level=info')).body as { lines: string[] };
    const { port } = (
      JSON.parse(readFileSync(join(dashboard.home.home, 'config.json'), 'utf8')) as { gateway: { port: number } }
    ).gateway;
    assert.equal(
      info.lines.map((line) => line.split(' ').slice(1).join(' ')).sort(),
      ['INFO channel connected channel=web', `INFO gateway started url=http://127.0.0.1:${port} channels=web`],
      'the same lines as tern gateway (in either order): its health server on gateway.port and the web-UI channel',
    );
  } finally {
    await dashboard.close();
  }
});

test.run();
