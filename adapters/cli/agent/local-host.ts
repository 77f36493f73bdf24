import { once } from 'node:events';
import { sessionKeyOf } from '../../../actors/wiring/session-key.js';
import type { Runtime } from '../../../actors/runtime.js';
import type { SessionRequest } from '../../../actors/routing.js';
import { mcpReady, type McpReadyReport } from '../../../actors/wiring/mcp-ready.js';
import { sessionIdOf, type Envelope } from '../../../bus/index.js';
import { redactorOf } from '../../../store/config/index.js';
import { CliError } from '../errors.js';
import type { AgentHost, ApprovalAnswer, ApprovalKeys, Opened } from './host.js';
import { interruption } from './interruption.js';

/** `tern agent` with no gateway running: the turns run in this process, which writes the log meanwhile. */
export class LocalHost implements AgentHost {
  readonly where = 'here';

  constructor(private readonly runtime: Runtime) {}

  async open(agentId: string | undefined, session: string): Promise<Opened> {
    const known = this.runtime.loaded.config.agents.list.map((a) => a.id);
    if (agentId && known.length > 0 && !known.includes(agentId)) {
      const listed = `agents.list has: ${known.join(', ')}`;
      throw new CliError('unknown_agent', `no agent "${agentId}"`, listed, 'Pick one of those with --agent.');
    }
    const agent = agentId ?? this.runtime.defaultAgent();
    const chat = `direct:${session}`;
    const key = sessionKeyOf({ agent, channel: 'cli', dimensions: [['chat', chat]] });
    return { agent, key, session: sessionIdOf(key), chat };
  }

  onEvent(listener: (event: Envelope) => void): void {
    this.runtime.bus.events$.subscribe(listener);
  }

  async prepare(report: McpReadyReport): Promise<void> {
    // The gateway loads plugins after it is ready; here the first turn waits for them, so their tools are there.
    await this.runtime.plugins.load();
    await mcpReady(this.runtime.mcp, this.runtime.loaded.config.tools.mcp.connect_timeout_seconds, report);
  }

  async ask(request: SessionRequest) {
    const reply = await this.runtime.ask(request);
    // The reply leaves the process on stdout: the same redaction as a chat's.
    return redactorOf(this.runtime.loaded.config).value(reply);
  }

  answerApproval(keys: ApprovalKeys, approvalId: string, answer: ApprovalAnswer): void {
    const { approved, by, reason } = answer;
    const data = { approval_id: approvalId, approved, by, ...(reason ? { reason } : {}) };
    this.runtime.bus.publish({ ...keys, type: 'approval.answered', data });
  }

  cancel(opened: Opened, messageId: string | undefined, reason: string): void {
    const { agent, session } = opened;
    const data = { reason, ...(messageId ? { message_id: messageId } : {}) };
    this.runtime.bus.publish({ agent, session, type: 'turn.abort.requested', data });
    this.runtime.subagents.cancelUnder(session, reason);
  }

  async close(signal: AbortSignal, progress: (line: string | undefined) => void): Promise<void> {
    const { evolution } = this.runtime;
    if (evolution.status === 'running' && !signal.aborted) {
      progress('finishing a skill draft (Ctrl-C stops it; it is then recorded as failed)');
      await Promise.race([evolution.settled(), once(signal, 'abort')]);
      progress(undefined);
    }
    await this.runtime.close({ reason: signal.aborted ? interruption(signal) : 'tern agent ended' });
  }
}
