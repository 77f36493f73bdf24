// README's quick start, run as a new user runs it: the command line of its first `sh` block, as written, in a shell on
// a terminal in the repository, with a fresh AGENT_HOME. The person at the terminal answers onboarding's questions
// (a local model server, a Telegram bot token, their own @name) and then writes to the bot, as does a stranger.
// The model is a loopback server; Telegram is the Bot API emulator, reached the way a user behind a proxy reaches the
// real one: `api.telegram.org:443` through HTTPS_PROXY, to a TLS server with a certificate for that name that the
// processes trust (NODE_EXTRA_CA_CERTS), so nothing in the config points elsewhere.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pairingText } from '../../actors/gateway/inbound.js';
import { repoRoot } from '../support/cli.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { tempHome, type TempHome } from '../support/temp-home.js';
import { TelegramEmulator } from '../support/telegram-emulator.js';

const TOKEN = '840001:quick-start-token-AAAA';

interface Context {
  home: TempHome;
  /** The certificate's folder, outside AGENT_HOME (onboarding finds that fresh). */
  certs: string;
  model: GatewayModel;
  emulator: TelegramEmulator;
  servers: Server[];
  proxy: string;
  tunnelled: string[];
}

/** The command lines of the README's `## Quick start` section, in order. */
function quickStart(): string[] {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Quick start\n');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1]!.trim());
}

const listening = (server: Server): Promise<number> =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));

/** A certificate for api.telegram.org, made here and trusted only by the processes told so. */
function telegramCertificate(dir: string): { key: string; cert: string; caFile: string } {
  const keyFile = join(dir, 'telegram-key.pem');
  const caFile = join(dir, 'telegram-cert.pem');
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=api.telegram.org',
      '-addext',
      'subjectAltName=DNS:api.telegram.org',
      '-keyout',
      keyFile,
      '-out',
      caFile,
    ],
    { encoding: 'utf8' },
  );
  assert.is(made.status, 0, made.stderr);
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(caFile, 'utf8'), caFile };
}

const test = suite<Context>("README's quick start");

test.before(async (context) => {
  // What `npm install` builds (the prepare script): the bin `npx tern` runs, from the sources of this checkout.
  const bundle = join(repoRoot, 'adapters', 'cli', 'bundle.mjs');
  const built = spawnSync(process.execPath, [bundle], { cwd: repoRoot, encoding: 'utf8' });
  assert.is(built.status, 0, built.stderr);
  context.home = tempHome();
  context.model = await startGatewayModel();
  context.emulator = await TelegramEmulator.start();
  context.certs = mkdtempSync(join(tmpdir(), 'tern-certs-'));
  const { key, cert } = telegramCertificate(context.certs);
  const emulator = new URL(context.emulator.url);
  const telegram = createTlsServer({ key, cert }, (req, res) => {
    const { url: path, method, headers } = req;
    const to = { host: emulator.hostname, port: emulator.port, path, method, headers };
    const forwarded = request(to, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(forwarded);
  });
  const telegramPort = await listening(telegram);
  context.tunnelled = [];
  const proxy = createServer((_, res) => res.writeHead(405).end());
  proxy.on('connect', (req, client) => {
    context.tunnelled.push(req.url ?? '');
    const upstream = connect(telegramPort, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  context.proxy = `http://127.0.0.1:${await listening(proxy)}`;
  context.servers = [telegram, proxy];
});

test.after(async (context) => {
  for (const server of context.servers) server.closeAllConnections();
  await Promise.all(context.servers.map((s) => new Promise((resolve) => s.close(resolve))));
  await context.emulator.stop();
  await context.model.close();
  context.home.remove();
  rmSync(context.certs, { recursive: true, force: true });
});

/** A shell on a terminal (util-linux `script`) running `line`; `typed` answers each question once it shows. */
function onTerminal(line: string, env: NodeJS.ProcessEnv, typed: Array<{ after: string; type: string }>) {
  const { FORCE_COLOR: _force, NO_COLOR: _no, ...plain } = env;
  const child: ChildProcessWithoutNullStreams = spawn('script', ['-qfec', line, '/dev/null'], {
    cwd: repoRoot,
    env: { ...plain, TERM: 'xterm' },
  });
  let raw = '';
  let seen = 0;
  let next = 0;
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  child.stdout.on('data', (chunk: Buffer) => {
    raw += chunk.toString();
    const nextAt = (): number => raw.indexOf(typed[next]?.after ?? '\0', seen);
    for (let at = nextAt(); next < typed.length && at >= 0; at = nextAt()) {
      seen = at + typed[next]!.after.length;
      child.stdin.write(typed[next++]!.type);
    }
    for (const waiter of waiters.filter((w) => raw.includes(w.text))) waiter.resolve();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    child,
    exited,
    raw: () => raw,
    /** Resolves once the terminal shows `text`; fails if the shell ends first. */
    shows: (text: string): Promise<void> =>
      Promise.race([
        new Promise<void>((resolve) => (raw.includes(text) ? resolve() : waiters.push({ text, resolve }))),
        exited.then((code) => Promise.reject(new Error(`the shell ended (${code}) before showing "${text}":\n${raw}`))),
      ]),
  };
}

test('as written: onboarding, then a bot that answers its owner and sends a stranger a pairing code', async (ctx) => {
  const { emulator, model } = ctx;
  const [setup] = quickStart();
  const steps = setup?.split('&&').map((s) => s.trim()) ?? [];
  assert.equal(steps.slice(0, 2), ['npm install', 'npx tern onboard'], 'the quick start installs, then onboards');
  assert.is(steps.at(-1), 'npx tern gateway');
  // `npm install` is what the suite's checkout already ran (and the install tests check); the rest runs as written.
  const line = setup!.slice(setup!.indexOf('&&') + 2).trim();
  const env = {
    ...ctx.home.env,
    HTTPS_PROXY: ctx.proxy,
    NO_PROXY: '127.0.0.1,localhost',
    NODE_EXTRA_CA_CERTS: join(ctx.certs, 'telegram-cert.pem'),
    npm_config_update_notifier: 'false',
  };
  const shell = onTerminal(line, env, [
    { after: 'Provider [openai]: ', type: 'ollama\r' },
    { after: 'Address of its API [http://localhost:11434/v1]: ', type: `${model.url}/v1\r` },
    { after: 'Model id [llama3.2]: ', type: '\r' },
    { after: 'Telegram bot token from @BotFather (Enter to skip): ', type: `${TOKEN}\r` },
    { after: 'Discord bot token (Enter to skip): ', type: '\r' },
    { after: 'Slack bot token, xoxb-… (Enter to skip): ', type: '\r' },
    { after: 'gets a pairing code first): ', type: '@alice\r' },
  ]);
  try {
    await shell.shows('gateway: serving');
    await emulator.say(TOKEN, 'hello bot', { userId: 1001, userName: 'alice' });
    assert.equal(
      (await emulator.waitForBotMessages(TOKEN, 1001, 1)).map((m) => m.text),
      ['echo: hello bot'],
    );
    await emulator.say(TOKEN, 'who are you?', { userId: 2002, userName: 'mallory' });
    const [answer] = await emulator.waitForBotMessages(TOKEN, 2002, 1);
    const code = /^Pairing code: ([A-Z2-9]{8})\n/.exec(answer?.text ?? '')?.[1];
    assert.equal(answer?.text, pairingText(code ?? 'none'), shell.raw());
    assert.equal([...new Set(ctx.tunnelled)], ['api.telegram.org:443']);
  } finally {
    shell.child.stdin.write('\x03');
  }
  assert.is(await shell.exited, 130, shell.raw());
});

test.run();
