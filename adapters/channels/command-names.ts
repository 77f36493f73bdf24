/** Chat commands registered at startup; every other `/word` is a message for the model. */
export const CHAT_COMMANDS = [
  'start',
  'help',
  'show',
  'list',
  'use',
  'clear',
  'stop',
  'subagents',
  'approve',
  'deny',
] as const;
export type CommandName = (typeof CHAT_COMMANDS)[number];
