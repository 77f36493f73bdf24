// SMTP's answers as the outbox acts on them: a 4xx defers the mail, which goes out once on a later try; a 5xx refuses
// it: it is never tried again, and the user is told.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { quietGateway } from '../../support/quiet.js';
import { startGatewayModel } from '../../support/gateway-model.js';
import { modelEntry, startGatewayProcess } from '../../support/gateway-process.js';
import { freePort } from '../../support/telegram-emulator.js';
import { sentAtLeast } from '../contract/kit.js';
import { BOT, EmailContractEmulator } from './email-contract-emulator.js';
import { deliver } from './mail-users.js';

const ALICE = 'alice@example.test';

test('a 451 is tried again and the reply goes out once; a 550 is not tried again', async () => {
  const model = await startGatewayModel();
  const emulator = await EmailContractEmulator.start();
  const settings = { ...emulator.settings(), allow_from: [ALICE] };
  const gateway = await startGatewayProcess(
    {
      gateway: { host: '127.0.0.1', port: await freePort() },
      agents: { defaults: { model: 'fast' } },
      model_list: [modelEntry(model.url, false)],
      heartbeat: { enabled: false },
      channel_list: { email: { enabled: true, type: 'email', settings } },
    },
    {},
    undefined,
    60_000,
  );
  try {
    const conversation = { sent: () => emulator.smtp.to(ALICE).map((m) => ({ text: m.text })) };
    emulator.smtp.failNext(451);
    await deliver(emulator.imap, { from: ALICE, to: BOT, text: 'through a deferral' });
    await sentAtLeast(conversation as never, 1);
    emulator.smtp.failNext(550);
    await deliver(emulator.imap, { from: ALICE, to: BOT, text: 'into a refusal' });
    await quietGateway(gateway.home.sessions, () => [emulator.smtp.mails.length, emulator.smtp.failed.length]);
    assert.equal(
      emulator.smtp.to(ALICE).map((m) => m.text),
      // The refused reply is reported to the user in the thread.
      ['echo: through a deferral', 'Part of my reply could not be delivered. Ask again if you still need it.'],
    );
    assert.equal(
      emulator.smtp.failed.map((f) => f.code),
      [451, 550],
    );
  } finally {
    await gateway.stop();
    await emulator.close();
    await model.close();
    gateway.home.remove();
  }
});

test.run();
