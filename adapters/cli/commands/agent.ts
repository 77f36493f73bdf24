import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline/promises';
import { sessionKeyOf } from '../../../actors/agent.js';
import type { Runtime } from '../../../actors/runtime.js';
import type { SessionReply, SessionRequest } from '../../../actors/routing.js';
import { sessionIdOf, type Envelope } from '../../../bus/index.js';
import { redactorOf } from '../../../store/config/index.js';
import type { CommandContext } from '../command.js';
import { print } from '../command.js';
import { CliError, UsageError } from '../errors.js';
import { openRuntime } from '../open-runtime.js';
import { readScript, unmet } from '../script.js';
import { TurnProgress, type Output } from '../turn-progress.js';

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

const REPLY_PREFIX = 'tern> ';

function inbound(agent: string, key: string, text: string, session: string): SessionRequest {
  return { agent, session_key: key, channel: 'cli', chat: `direct:${session}`, sender: 'cli', message_id: `cli_${randomBytes(4).toString('hex')}`, text, remote: false };
}

function replyText(reply: SessionReply): string {
  return reply.kind === 'none' ? '' : reply.text;
}

class Conversation {
  readonly key: string;
  readonly agent: string;
  private readonly events: Envelope[] = [];
  /** What the turn is doing, on a terminal (never with --json, whose stdout is the events). */
  readonly progress: TurnProgress | undefined;
  /** Asks the user about a tool call waiting for approval; unset (a one-shot or a script), nobody can answer. */
  ask: ((question: string) => Promise<string | undefined>) | undefined;

  constructor(private readonly runtime: Runtime, agentId: string | undefined, readonly session: string, private readonly context: CommandContext, chat?: { stream: boolean }) {
    this.agent = agentId ?? runtime.defaultAgent();
    this.key = sessionKeyOf({ agent: this.agent, channel: 'cli', dimensions: [['chat', `direct:${session}`]] });
    const id = sessionIdOf(this.key);
    const progress = context.json ? undefined : new TurnProgress(context.stderr as Output, context.stdout as Output, chat?.stream ?? false, chat ? REPLY_PREFIX : '');
    this.progress = progress;
    runtime.bus.events$.subscribe((event) => {
      if (event.session !== id) return;
      if (context.json) print(context.stdout, JSON.stringify(event));
      progress?.see(event);
      this.events.push(event);
      if (event.type === 'approval.requested') void this.approval(event);
    });
  }

  /** In a chat the user answers y or n; `-m` and scripts cannot ask, so the call is denied at once and they say so. */
  private async approval(event: Envelope<'approval.requested'>): Promise<void> {
    const { approval_id: id, prompt } = event.data;
    if (!this.ask) {
      this.context.stderr.write(`tern: ${prompt.replace(/ — reply .*$/, '')}; denied (tern agent -m and --script cannot ask for approval)\n`);
      this.runtime.bus.publish({ agent: event.agent, session: event.session, turn: event.turn, type: 'approval.answered', data: { approval_id: id, approved: false, by: 'unaskable', reason: 'tern agent -m and --script cannot ask; run `tern agent` for a chat, or talk through a channel' } });
      return;
    }
    const answer = await this.ask(`${prompt.replace(/ — reply .*$/, '')}. Approve? [y/N] `);
    const { reply } = await this.send(/^y(es)?$/i.test(answer?.trim() ?? '') ? `/approve ${id}` : `/deny ${id}`);
    if (!this.context.json && reply.kind !== 'none') print(this.context.stdout, `tern> ${reply.text}`);
  }

  /** Sends one message; returns the reply, the tools the turn called and whether a budget refused the turn. */
  async send(text: string): Promise<{ reply: SessionReply; tools: string[]; refused: boolean }> {
    const from = this.events.length;
    const reply = await this.runtime.ask(inbound(this.agent, this.key, text, this.session));
    const events = this.events.slice(from);
    const tools = events.flatMap((e) => (e.type === 'tool.requested' ? [e.data.name] : []));
    // The reply leaves the process on stdout: the same redaction as a chat's.
    return { reply: redactorOf(this.runtime.loaded.config).value(reply), tools, refused: events.some((e) => e.type === 'budget.reached') };
  }
}

async function runScript(path: string, context: CommandContext, runtime: Runtime): Promise<number> {
  const script = readScript(path);
  const conversation = new Conversation(runtime, str(context.values.agent) ?? script.agent, str(context.values.session) ?? script.session ?? `script-${randomBytes(4).toString('hex')}`, context);
  let failures = 0;
  for (const [index, turn] of script.turns.entries()) {
    const { reply, tools } = await conversation.send(turn.user);
    const miss = unmet(turn.expect, replyText(reply), tools);
    if (miss) failures++;
    if (!context.json) {
      print(context.stdout, `> ${turn.user}`);
      print(context.stdout, replyText(reply));
      if (turn.expect) print(context.stdout, miss ? `✗ turn ${index + 1}: ${miss}` : `✓ turn ${index + 1}`);
    } else if (turn.expect) {
      print(context.stdout, JSON.stringify({ expectation: { turn: index + 1, ok: !miss, ...(miss ? { problem: miss } : {}) } }));
    }
  }
  if (failures > 0) context.stderr.write(`tern: ${failures} of ${script.turns.length} expectations failed\n`);
  return failures > 0 ? 1 : 0;
}

async function interactive(conversation: Conversation, context: CommandContext): Promise<number> {
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY });
  context.signal.addEventListener('abort', () => rl.close());
  print(context.stdout, 'Chatting with the agent. /help lists commands; Ctrl-D ends.');
  // The prompt loop waits for the turn; the approval question is the one line read meanwhile.
  conversation.ask = (question) => rl.question(question).catch(() => undefined);
  try {
    for (;;) {
      const line = await rl.question('you> ').catch(() => undefined);
      if (line === undefined) return 0;
      if (!line.trim()) continue;
      const { reply } = await conversation.send(line);
      if (context.json || reply.kind === 'none') continue;
      // A streamed reply is on the screen already: only what did not stream is printed.
      if (reply.kind === 'turn' && conversation.progress) context.stdout.write(conversation.progress.rest(reply.text));
      else print(context.stdout, `${REPLY_PREFIX}${reply.text}`);
    }
  } finally {
    rl.close();
  }
}


export async function run(context: CommandContext): Promise<number> {
  const { values } = context;
  const message = str(values.message);
  const script = str(values.script);
  if (message !== undefined && script !== undefined) throw new UsageError('-m and --script cannot be used together');
  if (message !== undefined && !message.trim()) throw new UsageError('-m needs a message');
  // In a chat on a terminal the reply streams as it is written: every model streams for this run.
  const streamReply = message === undefined && script === undefined && !context.json && process.stdout.isTTY === true;
  const model = str(values.model);
  const runtime = openRuntime(context.env, `agent`, { ...(model ? { model } : {}), stream: streamReply });
  try {
    // The gateway loads plugins after it is ready; here the first turn waits for them, so their tools are there.
    await runtime.plugins.load();
    const agentId = str(values.agent);
    const known = runtime.loaded.config.agents.list.map((a) => a.id);
    if (agentId && known.length > 0 && !known.includes(agentId)) {
      throw new CliError('unknown_agent', `no agent "${agentId}"`, `agents.list has: ${known.join(', ')}`, 'Pick one of those with --agent.');
    }
    if (script !== undefined) return await runScript(script, context, runtime);
    const conversation = new Conversation(runtime, agentId, str(values.session) ?? 'default', context, message === undefined ? { stream: streamReply } : undefined);
    if (message === undefined) return await interactive(conversation, context);
    const { reply, refused } = await conversation.send(message);
    conversation.progress?.stop();
    if (!context.json && reply.kind !== 'none') print(context.stdout, reply.text);
    return refused || (reply.kind === 'turn' && reply.outcome === 'failed') ? 1 : 0;
  } finally {
    await runtime.close();
  }
}
