// A second process writing a log, for follow and crash tests.
// Usage: log-writer-child.ts DIR COUNT DELAY_MS  (COUNT 0 = forever). After each commit it prints the
// highest committed seq, so a parent knows which events were acknowledged.
import { setTimeout as sleep } from 'node:timers/promises';
import { validateDraft } from '../../bus/index.js';
import { EventLog } from '../../store/log/event-log.js';

const [dir, countArg, delayArg] = process.argv.slice(2);
const count = Number(countArg);
const delay = Number(delayArg);
const log = EventLog.open(dir!);
for (let i = 1; count === 0 || i <= count; i++) {
  const turn = `t${Math.ceil(i / 10)}`;
  log.append(
    validateDraft({
      type: 'provider.chunk',
      agent: 'main',
      session: `s${i % 3}`,
      turn,
      data: { kind: 'text', delta: `event ${i}` },
    }),
  );
  if (delay > 0) {
    await log.committed();
    process.stdout.write(`${log.lastSeq}\n`);
    await sleep(delay);
  } else if (i % 200 === 0) {
    await log.committed();
    process.stdout.write(`${log.lastSeq}\n`);
  }
}
await log.flushed();
log.close();
