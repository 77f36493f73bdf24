import { randomFillSync } from 'node:crypto';

// One call to the random source serves 1,024 ids: for a few bytes, the call is most of the work.
const pool = new Uint32Array(1024);
let next = pool.length;

function randomHex6(): string {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return (pool[next++]! & 0xffffff).toString(16).padStart(6, '0');
}

/** Turn ids sort by time and read well in a terminal: `t_` + base36 milliseconds + 6 random hex digits. */
export function newTurnId(now = Date.now()): string {
  return `t_${now.toString(36)}${randomHex6()}`;
}

/** Subagent task ids, shaped like turn ids: `sa_` + base36 milliseconds + 6 random hex digits. */
export function newTaskId(now = Date.now()): string {
  return `sa_${now.toString(36)}${randomHex6()}`;
}
