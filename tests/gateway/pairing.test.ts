// Channels are closed by default (the report: a bot set up by `tern onboard --telegram-token` answered every chat that
// found it). Against the Telegram Bot API emulator: the owner listed in allow_from is answered; a stranger gets one
// pairing code and no turn; `tern pairing approve CODE` lets them in, while the gateway runs and after a restart.
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pairingText } from '../../actors/gateway/inbound.js';
import { APPROVED_NOTICE } from '../../actors/pairing-desk.js';
import { runCliAsync } from '../support/cli.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { modelEntry, startGatewayProcess } from '../support/gateway-process.js';
import { freePort, TelegramEmulator } from '../support/telegram-emulator.js';
import { tempHome } from '../support/temp-home.js';

const OWNED = '810001:owned-bot-token-AAAA';
const PEER = '810002:peer-bot-token-BBBB';
const OPEN = '810003:open-bot-token-CCCC';

interface Context {
  model: GatewayModel;
  emulator: TelegramEmulator;
}

const test = suite<Context>('pairing');

test.before(async (context) => {
  context.model = await startGatewayModel();
  context.emulator = await TelegramEmulator.start();
});

test.after(async (context) => {
  await context.emulator.stop();
  await context.model.close();
});

const texts = (messages: Array<{ text: string }>): string[] => messages.map((m) => m.text);
const codeIn = (text: string | undefined): string =>
  /^Pairing code: ([A-Z2-9]{8})\n/.exec(text ?? '')?.[1] ?? `no code in ${JSON.stringify(text)}`;

async function config({ model, emulator }: Context): Promise<Record<string, unknown>> {
  const bot = (token: string, allowFrom?: string[]) => ({
    enabled: true,
    type: 'telegram',
    settings: {
      token,
      base_url: emulator.url,
      poll_timeout_seconds: 1,
      ...(allowFrom ? { allow_from: allowFrom } : {}),
    },
  });
  return {
    gateway: { port: await freePort(), log_level: 'info' },
    heartbeat: { enabled: false },
    agents: { defaults: { model: 'fast' } },
    model_list: [modelEntry(model.url)],
    // As `tern onboard --owner 1001` writes it; a peer runtime's config with allow_from left empty; one opened on
    // purpose.
    channel_list: { telegram: bot(OWNED, ['1001']), peer: bot(PEER), open: bot(OPEN, ['*']) },
  };
}

test(
  'the owner is answered; a stranger gets one code and no turn; ' +
    'approved while the gateway runs, then answered, also after a restart',
  async (context) => {
    const { emulator } = context;
    let gateway = await startGatewayProcess(await config(context));
    const { home } = gateway;
    try {
      const log = readFileSync(join(home.home, 'logs', 'gateway.log'), 'utf8');
      assert.ok(
        log.includes(
          'WARN channel open is open to everyone (allow_from: ["*"]): whoever finds the bot runs the agent\'s tools',
        ),
        log,
      );
      assert.ok(
        log.includes(
          'WARN channel peer has an empty allow_from, ' +
            'so only senders you approve may talk to it: a stranger gets a pairing code',
        ),
        log,
      );
      assert.not.ok(log.includes('channel telegram has'), 'a channel with allow_from gets no line');

      await emulator.say(OWNED, 'hi from the owner', { userId: 1001, userName: 'owner' });
      assert.equal(texts(await emulator.waitForBotMessages(OWNED, 1001, 1)), ['echo: hi from the owner']);

      await emulator.say(OWNED, 'hello?', { userId: 2002, userName: 'bob' });
      const code = codeIn((await emulator.waitForBotMessages(OWNED, 2002, 1))[0]?.text);
      await emulator.say(OWNED, 'anyone there?', { userId: 2002, userName: 'bob' });
      // The second message is taken before the owner's next one is answered: by then it got no second code.
      await emulator.say(OWNED, 'again', { userId: 1001, userName: 'owner' });
      await emulator.waitForBotMessages(OWNED, 1001, 2);
      assert.equal(texts(emulator.botMessages(OWNED, 2002)), [pairingText(code)]);
      assert.is(
        context.model.asked.filter((text) => text.includes('hello?') || text.includes('anyone there?')).length,
        0,
        'no turn for the stranger',
      );

      const listed = await runCliAsync(['pairing', 'list', '--json'], home.env);
      const requests = (JSON.parse(listed.stdout) as { requests: Array<Record<string, unknown>> }).requests;
      assert.equal(
        requests.map(({ created_at: _, expires_at: __, ...rest }) => rest),
        [
          {
            code,
            channel: 'telegram',
            account: 'default',
            sender: '2002',
            aliases: ['2002', '@bob'],
            chat: 'direct:2002',
            reply_to: '2002',
          },
        ],
      );

      const approved = await runCliAsync(['pairing', 'approve', code.toLowerCase()], home.env);
      assert.equal(
        [approved.code, approved.stdout, approved.stderr],
        [0, `approved ${code}: 2002 (@bob) may talk to the bot on telegram from now on\n`, ''],
      );
      assert.equal(texts(await emulator.waitForBotMessages(OWNED, 2002, 2)), [pairingText(code), APPROVED_NOTICE]);
      await emulator.say(OWNED, 'now?', { userId: 2002, userName: 'bob' });
      assert.equal(texts(await emulator.waitForBotMessages(OWNED, 2002, 3)).at(-1), 'echo: now?');
      assert.is(statSync(join(home.home, 'pairing.json')).mode & 0o777, 0o600);

      assert.is(await gateway.stop(), 0);
      gateway = await startGatewayProcess(await config(context), {}, home);
      await emulator.say(OWNED, 'after a restart', { userId: 2002, userName: 'bob' });
      assert.equal(texts(await emulator.waitForBotMessages(OWNED, 2002, 4)).at(-1), 'echo: after a restart');
      assert.is(await gateway.stop(), 0);

      const events = await runCliAsync(['log', '--type', 'pairing.*', '--json'], home.env);
      const pairing = events.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
      assert.equal(
        pairing.map((e) => e.type),
        ['pairing.requested', 'pairing.decision.requested', 'pairing.decided'],
      );
      assert.equal(pairing[2]?.data, {
        request: pairing[1]?.data.request,
        code,
        channel: 'telegram',
        sender: '2002',
        decision: 'approve',
        by: 'cli',
      });
    } finally {
      if (gateway.child.exitCode === null) await gateway.stop();
      home.remove();
    }
  },
);

test('with no gateway running: approve and deny on the event log; unknown and expired codes are errors', async () => {
  const home = tempHome();
  try {
    writeFileSync(join(home.home, 'config.json'), JSON.stringify({ version: 2 }));
    const request = (code: string, sender: string, minutesAgo: number) => {
      const created = Date.now() - minutesAgo * 60_000;
      return {
        code,
        channel: 'telegram',
        account: 'default',
        sender,
        aliases: [sender],
        chat: `direct:${sender}`,
        reply_to: sender,
        created_at: new Date(created).toISOString(),
        expires_at: new Date(created + 3_600_000).toISOString(),
      };
    };
    writeFileSync(
      join(home.home, 'pairing.json'),
      JSON.stringify({
        version: 1,
        requests: [request('AAAA2222', '3003', 5), request('BBBB3333', '4004', 10), request('CCCC4444', '5005', 61)],
      }),
    );
    chmodSync(join(home.home, 'pairing.json'), 0o600);

    const listed = await runCliAsync(['pairing', 'list'], home.env);
    assert.equal(listed.stdout.split('\n').slice(0, 3), [
      'CODE      CHANNEL   SENDER  CHAT         EXPIRES',
      'AAAA2222  telegram  3003    direct:3003  in 55 min',
      'BBBB3333  telegram  4004    direct:4004  in 50 min',
    ]);
    const approve = await runCliAsync(['pairing', 'approve', 'AAAA-2222', '--json'], home.env);
    assert.equal(
      [approve.code, JSON.parse(approve.stdout)],
      [0, { ok: true, code: 'AAAA2222', decision: 'approve', channel: 'telegram', sender: '3003', aliases: ['3003'] }],
    );
    const deny = await runCliAsync(['pairing', 'deny', 'BBBB3333'], home.env);
    assert.equal(
      [deny.code, deny.stdout],
      [0, 'denied BBBB3333: 4004 gets no answer on telegram, and no new code within the hour\n'],
    );
    const expired = await runCliAsync(['pairing', 'approve', 'CCCC4444'], home.env);
    assert.equal(
      [expired.code, expired.stderr],
      [
        1,
        'tern: pairing code CCCC4444 has expired (a code is good for an hour). ' +
          'Ask them to write to the bot again: they get a new code an hour after the last one.\n',
      ],
    );
    const unknown = await runCliAsync(['pairing', 'deny', 'AAAA2222', '--json'], home.env);
    assert.equal(
      [unknown.code, JSON.parse(unknown.stdout)],
      [
        1,
        {
          ok: false,
          error: {
            code: 'pairing_unknown',
            message:
              'no pairing request has the code AAAA2222 (it was never issued here, or it was decided already). ' +
              'Run `tern pairing list` to see the codes that wait.',
          },
        },
      ],
    );
    assert.is((await runCliAsync(['pairing', 'approve'], home.env)).code, 2);

    const file = JSON.parse(readFileSync(join(home.home, 'pairing.json'), 'utf8')) as {
      requests: unknown[];
      approved: Array<{ sender: string }>;
    };
    assert.equal([file.requests, file.approved.map((a) => a.sender)], [[], ['3003']]);
    const events = await runCliAsync(['log', '--type', 'pairing.*', '--json'], home.env);
    const decided = events.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; data: { code: string; reason?: string } });
    assert.equal(
      decided.filter((e) => e.type !== 'pairing.decision.requested').map((e) => [e.type, e.data.code, e.data.reason]),
      [
        ['pairing.decided', 'AAAA2222', undefined],
        ['pairing.decided', 'BBBB3333', undefined],
        ['pairing.decision.failed', 'CCCC4444', 'expired'],
        ['pairing.decision.failed', 'AAAA2222', 'unknown'],
      ],
    );
  } finally {
    home.remove();
  }
});

test(
  'tern doctor warns about a channel open to everyone and ' + 'counts the approved and waiting senders of the others',
  async () => {
    const home = tempHome();
    try {
      const bot = (token: string, allowFrom: string[]) => ({
        enabled: true,
        type: 'telegram',
        settings: { token, allow_from: allowFrom },
      });
      writeFileSync(
        join(home.home, 'config.json'),
        JSON.stringify({
          version: 2,
          channel_list: { telegram: bot(OWNED, ['1001']), peer: bot(PEER, []), open: bot(OPEN, ['*']) },
        }),
      );
      const doctor = JSON.parse((await runCliAsync(['doctor', '--offline', '--json'], home.env)).stdout) as {
        checks: Array<{ name: string; status: string; message: string }>;
      };
      assert.equal(
        doctor.checks.filter((c) => c.name.startsWith('access ')).map((c) => [c.name, c.status, c.message]),
        [
          ['access telegram', 'ok', '1 listed in allow_from; 0 approved, 0 waiting by pairing'],
          ['access peer', 'ok', 'only senders you approve (allow_from is empty): 0 approved, 0 waiting'],
          [
            'access open',
            'warn',
            'open to everyone (allow_from: ["*"]): ' +
              "whoever finds the bot runs the agent's tools and spends your tokens",
          ],
        ],
      );
    } finally {
      home.remove();
    }
  },
);

test.run();
