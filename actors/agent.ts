import { createActor } from 'xstate';
import { sessionIdOf } from '../bus/index.js';
import { agentMachine } from '../machines/agent.js';
import { MachineActor } from './machine-actor.js';
import { SessionActor, type AgentServices, type InboundMessage, type SessionLink, type SessionReply } from './session.js';

/** One agent: a session actor per session key, created on first use; sessions run concurrently. */
export class AgentActor {
  private readonly sessions = new Map<string, SessionActor>();
  /** Sessions of subagent tasks this agent runs: one task each, released when it ends. */
  private readonly delegated = new Map<string, SessionActor>();
  /** The agent machine: `serving` → `stopping` → `stopped`, with the number of sessions opened. */
  private readonly lifecycle: MachineActor<typeof agentMachine>;

  constructor(readonly id: string, private readonly services: AgentServices) {
    const actorId = `agent:${id}`;
    this.lifecycle = new MachineActor(createActor(agentMachine, { id: actorId }), {
      bus: services.bus,
      correlation: { agent: id },
      id: actorId,
      machine: 'agent',
      view: ({ value, context }) => ({ value, shown: { sessions: context.sessions } }),
    });
  }

  handle(sessionKey: string, message: InboundMessage): Promise<SessionReply> {
    return this.session(sessionKey).handle(message);
  }

  session(sessionKey: string): SessionActor {
    let session = this.sessions.get(sessionKey);
    if (!session) {
      session = new SessionActor(this.services, sessionKey, sessionIdOf(sessionKey));
      this.sessions.set(sessionKey, session);
      this.lifecycle.send({ type: 'SESSION_OPENED' });
    }
    return session;
  }

  /** A new session for a subagent task, linked to the turn that started it. */
  openDelegated(sessionKey: string, link: SessionLink): SessionActor {
    const session = new SessionActor(this.services, sessionKey, sessionIdOf(sessionKey), link);
    this.delegated.set(sessionKey, session);
    return session;
  }

  /** The task has ended: its session's actors stop and its todo plan is released (the spec's transition). */
  releaseDelegated(sessionKey: string): void {
    const session = this.delegated.get(sessionKey);
    if (!session) return;
    this.delegated.delete(sessionKey);
    session.stopActors('the subagent task ended');
    this.services.todo.release(this.id, session.id);
  }

  /** Sessions of user conversations running a turn (subagents' sessions are not counted). */
  get busySessions(): number {
    return [...this.sessions.values()].filter((s) => s.busy).length;
  }

  async stop(reason: string): Promise<void> {
    this.lifecycle.send({ type: 'STOP' });
    const all = [...this.sessions.values(), ...this.delegated.values()];
    await Promise.all(all.map((s) => s.abortRunning(reason)));
    all.forEach((s) => s.stopActors(reason));
    this.lifecycle.send({ type: 'STOPPED' });
    this.lifecycle.stop(reason);
  }
}

// Gateway code imports it from its own light module, so loading the gateway does not load the turn engine.
export { sessionKeyOf } from './wiring/session-key.js';
