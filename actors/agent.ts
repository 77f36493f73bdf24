import { createActor, fromPromise, waitFor, type Actor, type ActorRefFrom } from 'xstate';
import { sessionIdOf, type Envelope } from '../bus/index.js';
import { agentMachine, type AgentEvent } from '../machines/agent.js';
import { nothingRunning } from '../machines/session.js';
import type { skillOverrideMachine } from '../machines/skill-override.js';
import type { mcpDiscoveryMachine } from '../machines/mcp-discovery.js';
import type { AgentServices } from './agent-services.js';
import type { BoardInspector } from './board.js';
import { nextToolbox, startSession, type SessionActor } from './session.js';
import type { Toolbox } from './turn-actors.js';

/** Sessions an agent keeps in memory by default; beyond it the least recently used idle one leaves. */
export const SESSION_LIMIT = 256;
/** How long a stop waits for a session's running turn to end after it was aborted. */
const ABORT_WAIT_MS = 10_000;

/** An idle session with nothing that lives only in memory (an armed `/use`, unlocked MCP tools) may leave. */
function mayLeave(session: SessionActor): boolean {
  const snapshot = session.getSnapshot();
  if (snapshot.value !== 'idle' || snapshot.context.queue.length > 0) return false;
  const skill = snapshot.children.skill as ActorRefFrom<typeof skillOverrideMachine> | undefined;
  const discovery = snapshot.children.discovery as ActorRefFrom<typeof mcpDiscoveryMachine> | undefined;
  return (
    !skill?.getSnapshot().context.armed && Object.keys(discovery?.getSnapshot().context.unlocked ?? {}).length === 0
  );
}

/**
 * One agent: its machine (`serving` → `draining` → `stopping` → `stopped`) and its session actors, one per session
 * key, opened by a session's first message and in least-recently-used order: past `sessionLimit` an idle session
 * leaves memory (its history loads from the log when its next message comes).
 */
export class AgentActor {
  private readonly sessions = new Map<string, SessionActor>();
  readonly actor: Actor<typeof agentMachine>;

  constructor(
    readonly id: string,
    private readonly services: AgentServices,
    private readonly board: BoardInspector,
    private readonly sessionLimit = SESSION_LIMIT,
  ) {
    const machine = agentMachine.provide({
      actors: { stopSessions: fromPromise(({ input }) => this.stopSessions(input.reason)) },
      actions: {
        openSession: (_, message) => this.open(message),
        deliver: (_, message) => this.deliver(message),
        stopTurn: (_, request) => this.stopTurn(request),
        abortTurn: (_, request) => this.abortTurn(request),
        release: (_, request) => this.release(request.session ?? '', request.data.reason),
        drainSessions: () => this.sessions.forEach((s) => s.send({ type: 'DRAIN' })),
      },
      guards: { isOpen: (_, message) => this.sessions.has(message.session ?? '') },
    });
    this.actor = createActor(machine, { id: `agent:${id}`, input: { agent: id }, inspect: board.inspect });
    this.actor.subscribe({ error: () => undefined });
    this.actor.start();
  }

  send(event: AgentEvent): void {
    this.actor.send(event);
  }

  /** The tools the next turn of the session with this key would have (`tern tool`). */
  nextToolbox(sessionKey: string): Toolbox {
    return nextToolbox(this.services, this.sessions.get(sessionIdOf(sessionKey)));
  }

  /** Sessions of user conversations handling a message now (subagents' sessions are not counted). */
  get busySessions(): number {
    let busy = 0;
    for (const session of this.sessions.values()) {
      const snapshot = session.getSnapshot();
      if (snapshot.matches('handling') && snapshot.context.keys.task === undefined) busy++;
    }
    return busy;
  }

  /** Resolves once no session handles a message (after `DRAIN` nothing new starts). */
  async settled(): Promise<void> {
    await Promise.all(
      [...this.sessions.values()].map((s) =>
        waitFor(s, (snapshot) => !snapshot.matches('handling') || snapshot.status !== 'active').catch(() => undefined),
      ),
    );
  }

  /** Ends running turns as aborted and closes every session; resolves once the agent has stopped. */
  async stop(reason: string): Promise<void> {
    this.actor.send({ type: 'STOP', reason });
    await waitFor(this.actor, (snapshot) => snapshot.status !== 'active').catch(() => undefined);
  }

  private open(message: Envelope<'message.routed'>): void {
    const id = message.session!;
    // A subagent task's session carries its task's keys on every event.
    const link =
      message.task !== undefined
        ? { ...(message.parent !== undefined ? { parent: message.parent } : {}), task: message.task }
        : {};
    const session = startSession(
      this.services,
      { agent: this.id, session: id, ...link },
      message.data.session_key,
      this.board.inspect,
      message.data.delegated_by,
    );
    this.sessions.set(id, session);
    session.subscribe({
      complete: () => {
        if (this.sessions.get(id) === session) this.sessions.delete(id);
      },
      error: () => {
        if (this.sessions.get(id) === session) this.sessions.delete(id);
        this.board.stopped(`session:${id}`, 'failed');
      },
    });
    session.start();
    this.makeRoom();
  }

  private deliver(message: Envelope<'message.routed'>): void {
    const id = message.session!;
    const session = this.sessions.get(id)!;
    // Most recently used last.
    this.sessions.delete(id);
    this.sessions.set(id, session);
    session.send({ type: 'MESSAGE', message });
  }

  /** `/stop` stops the running turn and every subagent task started from this conversation. */
  private stopTurn(request: Envelope<'turn.stop.requested'>): void {
    const id = request.session ?? '';
    const tasks = this.services.subagents?.cancelUnder(id, '/stop in the chat that started it') ?? 0;
    const session = this.sessions.get(id);
    if (session) session.send({ type: 'STOP', request, tasks });
    else
      for (const answer of nothingRunning({ agent: this.id, session: id }, request, tasks))
        this.services.bus.publish(answer);
  }

  /**
   * A subagent task's session ends with its task, so its abort drains it too; a user's session (Ctrl-C in
   * `tern agent`) goes on with its next message.
   */
  private abortTurn(request: Envelope<'turn.abort.requested'>): void {
    const session = this.sessions.get(request.session ?? '');
    const { reason, message_id } = request.data;
    if (request.task !== undefined) session?.send({ type: 'ABORT', reason });
    else session?.send({ type: 'CANCEL', reason, ...(message_id !== undefined ? { message_id } : {}) });
  }

  /** A subagent task has ended: its session's actors stop and its todo plan is released (the spec's transition). */
  private release(id: string, reason: string): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    this.board.stopped(`session:${id}`, reason);
    session.stop();
    this.services.todo.release(this.id, id);
  }

  /** The least recently used sessions that may leave do, until the agent is back within its limit. */
  private makeRoom(): void {
    for (const [id, session] of this.sessions) {
      if (this.sessions.size <= this.sessionLimit) return;
      if (!mayLeave(session)) continue;
      session.send({ type: 'EVICT' });
      this.sessions.delete(id);
    }
  }

  private async stopSessions(reason: string): Promise<void> {
    const sessions = [...this.sessions.entries()];
    for (const [, session] of sessions) session.send({ type: 'ABORT', reason });
    await Promise.all(
      sessions.map(([, session]) =>
        waitFor(session, (s) => !s.matches('handling') || s.status !== 'active', { timeout: ABORT_WAIT_MS }).catch(
          () => undefined,
        ),
      ),
    );
    for (const [id, session] of sessions) {
      this.board.stopped(`session:${id}`, reason);
      session.stop();
      this.sessions.delete(id);
    }
  }
}

// Gateway code imports it from its own light module, so loading the gateway does not load the turn engine.
export { sessionKeyOf } from './wiring/session-key.js';
