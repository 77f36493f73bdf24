import { randomBytes } from 'node:crypto';
import type { SessionReply, SessionRequest } from '../../../actors/routing.js';
import type { Envelope } from '../../../bus/index.js';
import { print, type CommandContext } from '../command.js';
import { interruption } from './interruption.js';
import type { AgentHost, Opened } from './host.js';
import { TurnProgress, type Output } from '../turn-progress.js';

/** After a cancel, how long the session may take to answer before the turn is taken as aborted anyway. */
const CANCEL_ANSWER_MS = 2000;

export interface Sent {
  reply: SessionReply;
  /** The tools the turn called, in order. */
  tools: string[];
  /** A budget refused the turn. */
  refused: boolean;
  /** What the model had said when the turn was aborted (streamed text, text before its tool calls). */
  partial: string;
}

/** A spawned subagent task of this conversation, as the terminal follows it. */
interface Task {
  name: string;
  ended?: 'completed' | 'failed' | 'canceled';
}

/**
 * One conversation of the terminal with an agent, wherever its turns run (`AgentHost`): it sends messages and
 * waits for their answers, shows what the turns do (`TurnProgress`), asks about approvals (or denies them where
 * nobody can answer), aborts the running turn on a signal, and follows the subagent tasks its turns spawn: their
 * results are printed here, and `settle` waits for them before the program ends.
 */
export class Conversation {
  private readonly events: Envelope[] = [];
  readonly progress: TurnProgress | undefined;
  /** Asks the user about a tool call waiting for approval; unset (a one-shot or a script), nobody can answer. */
  ask: ((question: string) => Promise<string | undefined>) | undefined;
  private readonly tasks = new Map<string, Task>();
  private readonly answers = new Map<string, string>();
  /** Task results to print once the reply being waited for is out. */
  private reports: Array<{ stream: 'stdout' | 'stderr'; text: string }> = [];
  private sending = false;
  private taskEnded: (() => void) | undefined;
  /** What the model said before its tool calls in this turn, and in the model call now running. */
  private said = '';
  private saying = '';
  private toldWaiting = false;

  constructor(
    private readonly host: AgentHost,
    readonly opened: Opened,
    private readonly context: CommandContext,
    chat?: { stream: boolean; prefix: string },
  ) {
    const { stdout, stderr, json } = context;
    this.progress = json
      ? undefined
      : new TurnProgress(stderr as Output, stdout as Output, chat?.stream ?? false, chat?.prefix ?? '');
    host.onEvent((event) => this.see(event));
  }

  private see(event: Envelope): void {
    if (event.task !== undefined && this.tasks.has(event.task) && event.session !== this.opened.session) {
      // The child turn's own answer: the whole of it, which `subagent.ended` only starts.
      if (event.type === 'turn.completed') this.answers.set(event.task, event.data.reply);
      return;
    }
    if (event.session !== this.opened.session) return;
    if (this.context.json) print(this.context.stdout, JSON.stringify(event));
    this.progress?.see(event);
    this.events.push(event);
    switch (event.type) {
      case 'approval.requested':
        return void this.approval(event);
      case 'provider.requested':
        this.saying = '';
        return;
      case 'provider.chunk':
        if (event.data.kind === 'text') this.saying += event.data.delta;
        return;
      case 'provider.responded':
        if (event.data.tool_calls.length > 0 && event.data.text.trim()) this.said += `${event.data.text.trim()}\n`;
        this.saying = '';
        return;
      case 'subagent.spawned':
        this.tasks.set(event.data.task_id, { name: event.data.label ? `"${event.data.label}"` : event.data.task_id });
        return;
      case 'subagent.ended':
        return this.ended(event);
      default:
        return;
    }
  }

  /** In a chat the user answers y or n; `-m` and scripts cannot ask, so the call is denied at once and they say so. */
  private async approval(event: Envelope<'approval.requested'>): Promise<void> {
    const { approval_id: id, prompt } = event.data;
    const keys = {
      agent: event.agent ?? this.opened.agent,
      session: this.opened.session,
      ...(event.turn ? { turn: event.turn } : {}),
    };
    if (!this.ask) {
      const asked = prompt.replace(/ — reply .*$/, '');
      this.context.stderr.write(`tern: ${asked}; denied (tern agent -m and --script cannot ask for approval)\n`);
      const reason = 'tern agent -m and --script cannot ask; run `tern agent` for a chat, or talk through a channel';
      this.host.answerApproval(keys, id, { approved: false, by: 'unaskable', reason });
      return;
    }
    const answer = await this.ask(`${prompt.replace(/ — reply .*$/, '')}. Approve? [y/N] `);
    const { reply } = await this.send(/^y(es)?$/i.test(answer?.trim() ?? '') ? `/approve ${id}` : `/deny ${id}`);
    if (!this.context.json && reply.kind !== 'none') print(this.context.stdout, `tern> ${reply.text}`);
  }

  /**
   * Sends one message and waits for its answer. When `signal` aborts meanwhile (Ctrl-C, SIGTERM), the message is
   * canceled: its turn ends as aborted (its tools' processes killed) and the answer says so.
   */
  async send(text: string, signal?: AbortSignal): Promise<Sent> {
    const from = this.events.length;
    const messageId = `cli_${randomBytes(4).toString('hex')}`;
    const { agent, key, chat } = this.opened;
    const request: SessionRequest = {
      agent,
      session_key: key,
      channel: 'cli',
      chat,
      sender: 'cli',
      message_id: messageId,
      text,
      remote: false,
    };
    this.said = '';
    this.saying = '';
    this.sending = true;
    let onAbort: (() => void) | undefined;
    try {
      const answered = this.host.ask(request);
      const aborted = new Promise<SessionReply>((resolve) => {
        onAbort = () => {
          this.host.cancel(this.opened, messageId, interruption(signal!));
          // The session answers an aborted message at once; one that cannot (a gateway gone quiet) is not waited for.
          setTimeout(() => resolve({ kind: 'turn', turn: '', outcome: 'aborted', text: '' }), CANCEL_ANSWER_MS).unref();
        };
        if (signal?.aborted) onAbort();
        else signal?.addEventListener('abort', onAbort, { once: true });
      });
      const reply = await Promise.race([answered, aborted]);
      const events = this.events.slice(from);
      const tools = events.flatMap((e) => (e.type === 'tool.requested' ? [e.data.name] : []));
      const refused = events.some((e) => e.type === 'budget.reached');
      return { reply, tools, refused, partial: `${this.said}${this.saying}`.trim() };
    } finally {
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      this.sending = false;
    }
  }

  /** Task results that came in while a reply was awaited, printed after it. */
  flush(): void {
    const reports = this.reports;
    this.reports = [];
    for (const { stream, text } of reports) this.context[stream].write(text);
  }

  private ended(event: Envelope<'subagent.ended'>): void {
    const task = this.tasks.get(event.data.task_id);
    if (!task) return;
    const { status, reason, result } = event.data;
    task.ended = status;
    if (!this.context.json) {
      const answer = this.answers.get(event.data.task_id) ?? result ?? '';
      // The words a chat gets from the gateway for a task whose child did not message it.
      const how = `${status === 'failed' ? 'failed' : 'was canceled'}: ${reason ?? 'no reason given'}`;
      const report =
        status === 'completed'
          ? { stream: 'stdout' as const, text: `Subagent task ${task.name} finished:\n\n${answer}\n` }
          : { stream: 'stderr' as const, text: `tern: subagent task ${task.name} ${how}\n` };
      this.reports.push(report);
      if (!this.sending) this.flush();
    }
    this.taskEnded?.();
  }

  private running(): Task[] {
    return [...this.tasks.values()].filter((t) => t.ended === undefined);
  }

  /**
   * Waits for the subagent tasks this conversation spawned, so their work is not cut off when the program ends; each
   * result is printed as it comes. When `signal` aborts (Ctrl-C), they are canceled and their ends awaited.
   */
  async settle(signal: AbortSignal): Promise<void> {
    let canceled = false;
    for (let running = this.running(); running.length > 0; running = this.running()) {
      if (signal.aborted && !canceled) {
        canceled = true;
        this.host.cancel(this.opened, undefined, interruption(signal));
      }
      if (!canceled) this.waiting(running);
      const next = new Promise<void>((resolve) => {
        this.taskEnded = resolve;
        if (!canceled) signal.addEventListener('abort', () => resolve(), { once: true });
        // A canceled task ends at once; one whose end never comes (a gateway gone) is not waited for long.
        else setTimeout(resolve, CANCEL_ANSWER_MS).unref();
      });
      const before = running.length;
      await next;
      if (canceled && this.running().length === before) break;
    }
    this.taskEnded = undefined;
    this.progress?.waitingFor(undefined);
  }

  private waiting(running: Task[]): void {
    const where = this.host.where === 'gateway' ? ' in the gateway' : '';
    const tasks = `${running.length} background task${running.length === 1 ? '' : 's'}${where}`;
    const line = `waiting for ${tasks} (${running.map((t) => t.name).join(', ')}); Ctrl-C cancels`;
    if (this.progress?.waitingFor(line) || this.toldWaiting) return;
    this.toldWaiting = true;
    if (!this.context.json) print(this.context.stderr, `tern: ${line}`);
  }
}
