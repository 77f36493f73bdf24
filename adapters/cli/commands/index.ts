import type { CommandSpec } from '../command.js';

const json = { type: 'boolean', description: 'print JSON instead of text' } as const;

/** Every command that works. Help is generated from this list; add a command here when it works. */
export const commands: CommandSpec[] = [
  {
    name: 'log',
    summary: 'read the event log, also while a gateway is writing it',
    usage: ['log [--session KEY] [--turn ID] [--type GLOB] [--after SEQ] [--limit N] [--follow] [--json]'],
    options: {
      session: { type: 'string', value: 'KEY', description: 'only events of this session (key or sk_v1_ id)' },
      turn: { type: 'string', value: 'ID', description: 'only events of this turn' },
      type: { type: 'string', value: 'GLOB', description: 'only these event types, e.g. provider.* or turn.*,tool.*' },
      after: { type: 'string', value: 'SEQ', description: 'only events after this sequence number, oldest first' },
      limit: { type: 'string', value: 'N', description: 'at most N events (default 50: the newest, oldest first)' },
      follow: { type: 'boolean', short: 'f', description: 'keep printing new events as they are appended' },
      json,
    },
    load: () => import('./log.js'),
  },
  {
    name: 'version',
    summary: 'print the version',
    usage: ['version'],
    options: {},
    load: () => import('./version.js'),
  },
];
