import { randomBytes } from 'node:crypto';

/** Turn ids sort by time and read well in a terminal: `t_` + base36 milliseconds + 6 random hex digits. */
export function newTurnId(now = Date.now()): string {
  return `t_${now.toString(36)}${randomBytes(3).toString('hex')}`;
}
