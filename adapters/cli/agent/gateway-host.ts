import type { GatewayClient } from '../../control/client.js';
import { emptyResultSchema, openResultSchema, replySchema } from '../../control/protocol.js';
import type { SessionReply, SessionRequest } from '../../../actors/routing.js';
import type { McpReadyReport } from '../../../actors/wiring/mcp-ready.js';
import type { Envelope } from '../../../bus/index.js';
import { gatewayFailure } from '../gateway-link.js';
import type { AgentHost, ApprovalAnswer, ApprovalKeys, Opened } from './host.js';

/**
 * `tern agent` while a gateway runs on this `AGENT_HOME`: the turns run there, in the one writer of the log, and
 * their events come back over the control socket as they are published.
 */
export class GatewayHost implements AgentHost {
  readonly where = 'gateway';

  constructor(private readonly client: GatewayClient) {}

  get pid(): number {
    return this.client.welcome.pid;
  }

  async open(agent: string | undefined, session: string): Promise<Opened> {
    const request = { type: 'open' as const, ...(agent ? { agent } : {}), session };
    const opened = await this.client.request(request, openResultSchema).catch(rethrow);
    return { agent: opened.agent, key: opened.session_key, session: opened.session, chat: opened.chat };
  }

  onEvent(listener: (event: Envelope) => void): void {
    // The gateway's events passed its bus's schema check; the wire checks their envelope.
    this.client.onEvent((event) => listener(event as unknown as Envelope));
  }

  async prepare(report: McpReadyReport): Promise<void> {
    const stop = this.client.onNotice((text, progress) => (progress ? report.waiting(text) : report.missing(text)));
    try {
      await this.client.request({ type: 'prepare' }, emptyResultSchema).catch(rethrow);
    } finally {
      stop();
    }
  }

  async ask(request: SessionRequest): Promise<SessionReply> {
    const { agent, session_key, chat, message_id, text } = request;
    return this.client.request({ type: 'ask', agent, session_key, chat, message_id, text }, replySchema).catch(rethrow);
  }

  answerApproval(keys: ApprovalKeys, approvalId: string, answer: ApprovalAnswer): void {
    this.client.send({ type: 'approval', ...keys, approval_id: approvalId, ...answer });
  }

  cancel(opened: Opened, messageId: string | undefined, reason: string): void {
    const { agent, session } = opened;
    this.client.send({ type: 'cancel', agent, session, ...(messageId ? { message_id: messageId } : {}), reason });
  }

  async close(): Promise<void> {
    this.client.close();
  }
}

function rethrow(error: unknown): never {
  throw gatewayFailure(error);
}
