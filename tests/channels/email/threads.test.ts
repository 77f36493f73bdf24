// A mail thread is one session: Tern's reply carries In-Reply-To, References and a `Re:` subject, the user's reply to
// it continues the session, a new mail starts another. HTML-only mail reaches the model as text. The last UID is kept
// with UIDVALIDITY: after a restart old mail is not answered again, mail that came meanwhile is answered once.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { quietGateway } from '../../support/quiet.js';
import { runCliAsync } from '../../support/cli.js';
import { startGatewayModel, type GatewayModel } from '../../support/gateway-model.js';
import { modelEntry, startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.js';
import { freePort } from '../../support/telegram-emulator.js';
import type { SentMail } from '../../support/smtp-sink.js';
import { sentAtLeast } from '../contract/kit.js';
import { BOT, EmailContractEmulator } from './email-contract-emulator.js';
import { deliver } from './mail-users.js';

interface Context {
  model: GatewayModel;
  emulator: EmailContractEmulator;
  gateway: GatewayProcess;
  config: Record<string, unknown>;
}

const ALICE = 'alice@example.test';
const threads = suite<Context>('email threads');

threads.before(async (context) => {
  context.model = await startGatewayModel();
  context.emulator = await EmailContractEmulator.start();
  const settings = { ...context.emulator.settings(), allow_from: [ALICE], restart_backoff_ms: 100 };
  context.config = {
    gateway: { host: '127.0.0.1', port: await freePort() },
    agents: { defaults: { model: 'fast' } },
    model_list: [modelEntry(context.model.url, false)],
    heartbeat: { enabled: false },
    channel_list: { email: { enabled: true, type: 'email', settings } },
  };
  context.gateway = await startGatewayProcess(context.config, {}, undefined, 60_000);
});

threads.after(async (context) => {
  if (context.gateway?.child.exitCode === null) await context.gateway.stop();
  await context.emulator?.close();
  await context.model?.close();
  context.gateway?.home.remove();
});

/** What the bot sent Alice, as a conversation the kit can wait on. */
const alice = (emulator: EmailContractEmulator) => {
  const mails = (): SentMail[] => emulator.smtp.to(ALICE);
  return { mails, conversation: { sent: () => mails().map((m) => ({ text: m.text })) } };
};

const settled = (context: Context, mails: () => SentMail[]) =>
  quietGateway(context.gateway.home.sessions, () => mails().length);

threads('a reply continues the thread and its session; a new mail starts another', async (context) => {
  const { emulator } = context;
  const { mails, conversation } = alice(emulator);
  const first = await deliver(emulator.imap, { from: ALICE, to: BOT, subject: 'Trip plan', text: 'first leg' });
  const [r1] = (await sentAtLeast(conversation as never, 1)) && mails();
  assert.equal(
    [r1!.text, r1!.subject, r1!.inReplyTo, r1!.references, r1!.from],
    ['echo: first leg', 'Re: Trip plan', first.messageId, [first.messageId], BOT],
  );
  const quoted = `second leg\n\nOn Sat, Tern wrote:\n> echo: first leg\n`;
  const second = await deliver(emulator.imap, {
    from: ALICE,
    to: BOT,
    subject: 'Re: Trip plan',
    text: quoted,
    inReplyTo: r1!.messageId,
    references: [first.messageId, r1!.messageId],
  });
  await sentAtLeast(conversation as never, 2);
  const html = await deliver(emulator.imap, {
    from: ALICE,
    to: BOT,
    subject: 'Other matter',
    html: '<html><body><p>Hello <b>there</b></p><script>x()</script></body></html>',
  });
  await sentAtLeast(conversation as never, 3);
  await settled(context, mails);
  const [, r2, r3] = mails();
  assert.equal(
    [r2!.text, r2!.subject, r2!.inReplyTo, r2!.references],
    ['echo: second leg', 'Re: Trip plan', second.messageId, [first.messageId, r1!.messageId, second.messageId]],
  );
  assert.equal([r3!.text, r3!.subject, r3!.inReplyTo], ['echo: Hello there', 'Re: Other matter', html.messageId]);
  assert.ok(emulator.imap.seen(first.uid) && emulator.imap.seen(second.uid), 'taken mail is marked \\Seen');
  await context.gateway.stop();
  const log = await runCliAsync(['log', '--type', 'message.routed', '--json'], context.gateway.home.env);
  const received = log.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { data: { text: string; session_key: string } });
  const sessionOf = (text: string) => received.find((e) => e.data.text === text)?.data.session_key;
  assert.ok(sessionOf('first leg'), log.stdout + log.stderr);
  assert.is(sessionOf('second leg'), sessionOf('first leg'), 'the reply is in the same session');
  assert.is.not(sessionOf('Hello there'), sessionOf('first leg'), 'a new mail starts a new session');
});

threads(
  'after a restart old mail is not answered again; mail that came meanwhile is answered once',
  async (context) => {
    const { emulator } = context;
    const { mails, conversation } = alice(emulator);
    const before = mails().length;
    await deliver(emulator.imap, { from: ALICE, to: BOT, subject: 'While away', text: 'sent while down' });
    context.gateway = await startGatewayProcess(context.config, {}, context.gateway.home, 60_000);
    await sentAtLeast(conversation as never, before + 1);
    await deliver(emulator.imap, { from: ALICE, to: BOT, subject: 'Back', text: 'after the restart' });
    await sentAtLeast(conversation as never, before + 2);
    await settled(context, mails);
    assert.equal(
      mails()
        .slice(before)
        .map((m) => m.text),
      ['echo: sent while down', 'echo: after the restart'],
    );
  },
);

threads.run();
