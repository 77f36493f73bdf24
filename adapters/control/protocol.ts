import * as z from 'zod/mini';

/** Raised when either side speaks a version the other does not. */
export const CONTROL_PROTOCOL = 1;

const text = z.string();
const id = z.string().check(z.minLength(1), z.maxLength(200));

/** Every message starts with the token from the owner-only file beside the socket. */
const hello = z.object({ type: z.literal('hello'), token: text, protocol: z.number() });
/**
 * A conversation of the terminal with an agent (`tern agent`): the gateway forwards its session's events from now on.
 */
const open = z.object({ type: z.literal('open'), id, agent: z.optional(text), session: id });
/** A message of an opened conversation; answered with its reply once the session has handled it. */
const ask = z.object({ type: z.literal('ask'), id, agent: text, session_key: text, chat: text, message_id: id, text });
/** The terminal gave up on a message (Ctrl-C): its turn is aborted, and the conversation's subagent tasks canceled. */
const cancel = z.object({
  type: z.literal('cancel'),
  agent: text,
  session: text,
  message_id: z.optional(text),
  reason: text,
});
/** The answer to an `approval.requested` the terminal could not, or did, ask its user about. */
const approval = z.object({
  type: z.literal('approval'),
  agent: text,
  session: text,
  turn: z.optional(text),
  approval_id: text,
  approved: z.boolean(),
  by: text,
  reason: z.optional(text),
});
/** Waits for what a first turn needs (MCP servers, plugins), with a `notice` for each step. */
const prepare = z.object({ type: z.literal('prepare'), id });
/** Runs a `tern` command in the gateway (`tern cron add …`), its output streamed back. `cwd` is the caller's. */
const run = z.object({ type: z.literal('run'), id, command: text, argv: z.array(text), cwd: text });
/** Ends a `run` early (the caller's Ctrl-C). */
const stop = z.object({ type: z.literal('stop'), id });

export const clientMessageSchema = z.discriminatedUnion('type', [
  hello,
  open,
  ask,
  cancel,
  approval,
  prepare,
  run,
  stop,
]);
export type ClientMessage = z.infer<typeof clientMessageSchema>;
export type ClientRequest = Extract<ClientMessage, { id: string }>;

/** A bus event as the log stores it; the CLI reads its type, keys and data. */
export const wireEventSchema = z.looseObject({
  seq: z.number(),
  at: z.number(),
  type: text,
  agent: z.optional(text),
  session: z.optional(text),
  turn: z.optional(text),
  parent: z.optional(text),
  task: z.optional(text),
  data: z.unknown(),
});

const welcome = z.object({
  type: z.literal('welcome'),
  protocol: z.number(),
  pid: z.number(),
  /** The gateway's config file and workspace: a CLI on another config is not its client. */
  config: text,
  workspace: text,
});
const refused = z.object({ type: z.literal('refused'), code: text, message: text });
const event = z.object({ type: z.literal('event'), event: wireEventSchema });
/**
 * A line for the terminal's stderr: a problem (a server that failed to connect), or with `progress` what is being
 * waited for, which a terminal shows until the next line and a pipe never sees.
 */
const notice = z.object({ type: z.literal('notice'), text, progress: z.optional(z.boolean()) });
const output = z.object({ type: z.literal('output'), id, stream: z.enum(['stdout', 'stderr']), text });
const done = z.object({ type: z.literal('done'), id, result: z.unknown() });
/** A request that could not be served: `code` and `message` as a CLI error says them, `exit` its exit code. */
const failed = z.object({ type: z.literal('failed'), id, code: text, message: text, exit: z.optional(z.number()) });

export const serverMessageSchema = z.discriminatedUnion('type', [
  welcome,
  refused,
  event,
  notice,
  output,
  done,
  failed,
]);
export type ServerMessage = z.infer<typeof serverMessageSchema>;
export type Welcome = z.infer<typeof welcome>;

/** What `done` carries for each request. */
export const openResultSchema = z.object({ agent: text, session_key: text, session: text, chat: text });
export const replySchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('turn'),
    turn: text,
    outcome: z.enum(['completed', 'stopped', 'failed', 'aborted']),
    text,
  }),
  z.object({ kind: z.literal('command'), text }),
  z.object({ kind: z.literal('none') }),
]);
export const emptyResultSchema = z.object({});
export const runResultSchema = z.object({ code: z.number() });
