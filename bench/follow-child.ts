// The second process of the follow benchmark: follows a log read-only and prints how late each event arrived.
import { EventLog } from '../store/log/event-log.js';
import { follow } from '../store/log/follow.js';

const log = (await EventLog.openWhenReady(process.argv[2]!))!;
process.stdout.write('ready\n');
for await (const event of follow(log, { type: 'heartbeat.*', after: log.lastCommittedSeq() })) {
  process.stdout.write(`lag ${Date.now() - event.at}\n`);
}
