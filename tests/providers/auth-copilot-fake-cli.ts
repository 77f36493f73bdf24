// The fake `copilot` executable for stdio mode: records its arguments and requests to COPILOT_FAKE_LOG.
import { appendFileSync } from 'node:fs';
import { serveCopilot } from './auth-copilot-fake.js';

const log = (entry: unknown) =>
  appendFileSync(process.env.COPILOT_FAKE_LOG ?? '/dev/null', `${JSON.stringify(entry)}\n`);
log({ argv: process.argv.slice(2) });
serveCopilot(process.stdin, process.stdout, log);
