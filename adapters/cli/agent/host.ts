import type { SessionReply, SessionRequest } from '../../../actors/routing.js';
import type { McpReadyReport } from '../../../actors/wiring/mcp-ready.js';
import type { Envelope } from '../../../bus/index.js';

/** A conversation as its host opened it: the agent, the session key, the session id its events carry, the chat. */
export interface Opened {
  agent: string;
  key: string;
  session: string;
  /** The terminal's chat in that session key (`direct:<session name>`). */
  chat: string;
}

/** The turn an approval belongs to. */
export interface ApprovalKeys {
  agent: string;
  session: string;
  turn?: string;
}

/** Who answers an approval the terminal handled: its user, or nobody (`-m` and scripts cannot ask). */
export interface ApprovalAnswer {
  approved: boolean;
  by: 'user' | 'unaskable';
  reason?: string;
}

/**
 * Where `tern agent`'s turns run: in this process (`LocalHost`, no gateway running) or in the gateway of this
 * `AGENT_HOME` (`GatewayHost`, over its control socket). The conversation only sees this interface, so every mode
 * behaves the same either way.
 */
export interface AgentHost {
  /** Where the turns run, for the messages that say so. */
  readonly where: 'here' | 'gateway';
  /** Opens a conversation (the agent checked); its events reach `onEvent` from now on. */
  open(agent: string | undefined, session: string): Promise<Opened>;
  /** Every event of the opened conversations, and of the subagent tasks they started. */
  onEvent(listener: (event: Envelope) => void): void;
  /** What the first turn needs: plugins loaded, MCP servers connected (or each named as missing). */
  prepare(report: McpReadyReport): Promise<void>;
  /** One message, answered once its session has handled it; the reply is redacted as a chat's is. */
  ask(request: SessionRequest): Promise<SessionReply>;
  answerApproval(keys: ApprovalKeys, approvalId: string, answer: ApprovalAnswer): void;
  /** Gives up on a message (its turn is aborted) and cancels the conversation's subagent tasks. */
  cancel(opened: Opened, messageId: string | undefined, reason: string): void;
  /**
   * Ends this process's part: here, a skill draft being written is finished first (unless `signal` says stop now),
   * then MCP servers and plugins stop and the log closes; with a gateway, the connection closes.
   */
  close(signal: AbortSignal, progress: (line: string | undefined) => void): Promise<void>;
}
