import { randomBytes } from 'node:crypto';
import type { CommandContext } from '../command.js';
import { print } from '../command.js';
import { CliError, UsageError } from '../errors.js';
import { findGateway } from '../gateway-link.js';
import { SIGNAL_EXIT } from '../run-command.js';
import type { AgentHost } from '../agent/host.js';
import { GatewayHost } from '../agent/gateway-host.js';
import { Conversation, type Sent } from '../agent/conversation.js';
import type { Script } from '../script.js';

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

const REPLY_PREFIX = 'tern> ';

/** The exit code of a run a signal ended (130 for Ctrl-C, 143 for SIGTERM). */
const signalExit = (signal: AbortSignal): number => SIGNAL_EXIT[signal.reason === 'SIGTERM' ? 'SIGTERM' : 'SIGINT'];

const abortedBySignal = (sent: Sent, signal: AbortSignal): boolean =>
  signal.aborted && sent.reply.kind === 'turn' && sent.reply.outcome === 'aborted';

/**
 * Where the turns run: the gateway of this `AGENT_HOME` when one runs (it is the one writer of the log), else this
 * process. The engine is loaded lazily: a client of the gateway never loads it. The gateway's host is small and
 * loaded with this command: one dynamic import less between the start and the turn.
 */
async function openHost(context: CommandContext, model: string | undefined, stream: boolean): Promise<AgentHost> {
  const client = await findGateway(context.env);
  if (client) {
    if (model !== undefined) {
      const pid = client.welcome.pid;
      client.close();
      throw new CliError(
        'model_with_gateway',
        '--model cannot be used while a gateway runs',
        `the turn runs in the gateway (process ${pid}) with the models of its config`,
        'Set agents.defaults.model in the config (the gateway reloads it), or stop the gateway.',
      );
    }
    return new GatewayHost(client);
  }
  const [{ openRuntime }, { LocalHost }] = await Promise.all([
    import('../open-runtime.js'),
    import('../agent/local-host.js'),
  ]);
  return new LocalHost(openRuntime(context.env, 'agent', { ...(model ? { model } : {}), stream }));
}

/** Plugins and MCP servers before the first turn; a server left out is named on stderr. Ctrl-C stops the wait. */
async function prepare(host: AgentHost, conversation: Conversation, context: CommandContext): Promise<void> {
  const ready = host.prepare({
    waiting: (line) => void conversation.progress?.waitingFor(line),
    missing: (line) => print(context.stderr, `tern: warning: ${line}`),
  });
  const interrupted = new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }));
  await Promise.race([ready, interrupted]);
  conversation.progress?.waitingFor(undefined);
}

async function runScript(script: Script, context: CommandContext, conversation: Conversation): Promise<number> {
  const { unmet } = await import('../script.js');
  let failures = 0;
  for (const [index, turn] of script.turns.entries()) {
    if (context.signal.aborted) break;
    const sent = await conversation.send(turn.user, context.signal);
    const reply = sent.reply.kind === 'none' ? '' : sent.reply.text;
    if (abortedBySignal(sent, context.signal)) {
      const stopped = conversation.progress?.stopped(sent.partial) ?? '[stopped]\n';
      if (!context.json) context.stdout.write(`> ${turn.user}\n${stopped}`);
      break;
    }
    const miss = unmet(turn.expect, reply, sent.tools);
    if (miss) failures++;
    if (!context.json) {
      print(context.stdout, `> ${turn.user}`);
      print(context.stdout, reply);
      if (turn.expect) print(context.stdout, miss ? `✗ turn ${index + 1}: ${miss}` : `✓ turn ${index + 1}`);
    } else if (turn.expect) {
      print(
        context.stdout,
        JSON.stringify({ expectation: { turn: index + 1, ok: !miss, ...(miss ? { problem: miss } : {}) } }),
      );
    }
    conversation.flush();
  }
  await conversation.settle(context.signal);
  if (context.signal.aborted) return signalExit(context.signal);
  if (failures > 0) context.stderr.write(`tern: ${failures} of ${script.turns.length} expectations failed\n`);
  return failures > 0 ? 1 : 0;
}

/**
 * The chat: every line is a message, in order, also when the lines come from a pipe all at once; the end of input
 * ends it after the last answer.
 */
async function interactive(conversation: Conversation, context: CommandContext): Promise<number> {
  // Loaded by the chat alone: readline is no part of a one-shot or scripted run.
  const { LineInput } = await import('../agent/line-input.js');
  const input = new LineInput(process.stdin, process.stdout, context.signal);
  print(context.stdout, 'Chatting with the agent. /help lists commands; Ctrl-D ends, Ctrl-C stops a turn and ends.');
  // The chat waits for the turn; the approval question is the one line read meanwhile.
  conversation.ask = (question) => input.next(question);
  try {
    for (;;) {
      const line = await input.next('you> ');
      if (line === undefined) break;
      if (!line.trim()) continue;
      const sent = await conversation.send(line, context.signal);
      if (abortedBySignal(sent, context.signal)) {
        const stopped = conversation.progress?.stopped(sent.partial) ?? `${REPLY_PREFIX}[stopped]\n`;
        if (!context.json) context.stdout.write(stopped);
        break;
      }
      const { reply } = sent;
      if (!context.json && reply.kind !== 'none') {
        // A streamed reply is on the screen already: only what did not stream is printed.
        const { progress } = conversation;
        if (reply.kind === 'turn' && progress) context.stdout.write(progress.rest(reply.text));
        else print(context.stdout, `${REPLY_PREFIX}${reply.text}`);
      }
      conversation.flush();
    }
  } finally {
    input.close();
  }
  await conversation.settle(context.signal);
  return context.signal.aborted ? signalExit(context.signal) : 0;
}

async function oneShot(message: string, conversation: Conversation, context: CommandContext): Promise<number> {
  const sent = await conversation.send(message, context.signal);
  conversation.progress?.stop();
  const { reply } = sent;
  if (abortedBySignal(sent, context.signal)) {
    if (!context.json) context.stdout.write(conversation.progress?.stopped(sent.partial) ?? '[stopped]\n');
    await conversation.settle(context.signal);
    return signalExit(context.signal);
  }
  if (!context.json && reply.kind !== 'none') print(context.stdout, reply.text);
  conversation.flush();
  await conversation.settle(context.signal);
  if (context.signal.aborted) return signalExit(context.signal);
  return sent.refused || (reply.kind === 'turn' && reply.outcome === 'failed') ? 1 : 0;
}

export async function run(context: CommandContext): Promise<number> {
  const { values } = context;
  const message = str(values.message);
  const scriptPath = str(values.script);
  if (message !== undefined && scriptPath !== undefined) {
    throw new UsageError('-m and --script cannot be used together');
  }
  if (message !== undefined && !message.trim()) throw new UsageError('-m needs a message');
  // A script that cannot run is said before anything starts (no turn is spent on it).
  const script = scriptPath !== undefined ? (await import('../script.js')).readScript(scriptPath) : undefined;
  const chat = message === undefined && script === undefined;
  // In a chat on a terminal the reply streams as it is written: every model streams for this run.
  const streamReply = chat && !context.json && process.stdout.isTTY === true;
  const host = await openHost(context, str(values.model), streamReply);
  let conversation: Conversation | undefined;
  let code: number;
  try {
    const fresh = `script-${randomBytes(4).toString('hex')}`;
    const session = str(values.session) ?? (script ? (script.session ?? fresh) : 'default');
    const opened = await host.open(str(values.agent) ?? script?.agent, session);
    const terminal = chat ? { stream: streamReply, prefix: REPLY_PREFIX } : undefined;
    conversation = new Conversation(host, opened, context, terminal);
    await prepare(host, conversation, context);
    if (context.signal.aborted) code = signalExit(context.signal);
    else if (script) code = await runScript(script, context, conversation);
    else if (message === undefined) code = await interactive(conversation, context);
    else code = await oneShot(message, conversation, context);
  } finally {
    const progress = conversation?.progress;
    await host.close(context.signal, (line) => {
      if (progress?.waitingFor(line)) return;
      if (line !== undefined && !context.json) print(context.stderr, `tern: ${line}`);
    });
  }
  // A signal during the close (a skill draft being finished) ends the run as interrupted too.
  return context.signal.aborted ? signalExit(context.signal) : code;
}
