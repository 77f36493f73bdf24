import type { SendOutcome } from '../options.js';
import { fail, ok, type ToolResult } from '../tool.js';

/** Who holds a relayed text: accepted by the member running its channel account, not yet confirmed out. */
export const holderOf = (account: string): string =>
  `the gateway running ${account} (queued there, not yet confirmed sent)`;

/**
 * The result of a tool that sent `subject` (the message, a file's path) to `where`: `sent` once it is out, handed over
 * when relayed, and an error result when it went nowhere, so the model never tells the user of a send that did not
 * happen.
 */
export function sendResult(outcome: SendOutcome, subject: string, where: string, sent: string): ToolResult {
  switch (outcome.kind) {
    case 'sent':
      return ok(sent);
    case 'relayed':
      return ok(`${subject} handed to ${holderOf(outcome.to)} for ${where}`);
    case 'not_delivered':
      return fail(`${subject} not delivered to ${where}: ${outcome.reason}`);
  }
}
