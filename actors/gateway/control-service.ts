import type { Subscription } from 'rxjs';
import { ControlServer, type ControlConnection, type ControlService } from '../../adapters/control/server.js';
import type { ClientMessage } from '../../adapters/control/protocol.js';
import { sessionIdOf } from '../../bus/index.js';
import { redactorOf } from '../../store/config/index.js';
import type { Runtime } from '../runtime.js';
import type { RuntimeCore } from '../runtime-core.js';
import { sessionKeyOf } from '../wiring/session-key.js';
import { mcpReady } from '../wiring/mcp-ready.js';

type Request<T extends ClientMessage['type']> = Extract<ClientMessage, { type: T }>;

/**
 * A `tern` command run in the gateway for a client (`tern cron add …`): the CLI supplies it, actors do not import it.
 */
export type GatewayCommandRunner = (
  request: { command: string; argv: string[]; cwd: string },
  io: { write(stream: 'stdout' | 'stderr', text: string): void; signal: AbortSignal },
) => Promise<number>;

/** What the control socket serves from: the gateway's log and bus, and its turn engine. */
export interface ControlHost {
  core: RuntimeCore;
  engine(): Promise<Runtime>;
}

/** A request that cannot be served, said as a CLI error says it. */
class Refusal extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exit = 1,
  ) {
    super(message);
  }
}

/**
 * The gateway's side of `tern agent` and the commands the CLI hands over (`adapters/control` is the transport): a
 * conversation's messages are routed to its session like any chat's, and its events go back to the terminal as they
 * are published, its subagent tasks' with them. The turn runs here, in the one writer of the log.
 */
export class GatewayControl implements ControlService {
  private readonly stopping: Subscription;
  private closing = false;
  private readonly runs = new Map<string, AbortController>();

  constructor(
    private readonly host: ControlHost,
    private readonly runCommand?: GatewayCommandRunner,
  ) {
    // Once the gateway drains, a new message would wait for the next start: the terminal hears why instead. Turns
    // already running finish and answer; what is left is cut off when the socket closes at the stop.
    this.stopping = host.core.bus.on('gateway.stopping').subscribe(() => (this.closing = true));
  }

  welcome() {
    const { loaded } = this.host.core;
    return { pid: process.pid, config: loaded.path, workspace: loaded.workspace };
  }

  close(): void {
    this.stopping.unsubscribe();
  }

  handle(message: Exclude<ClientMessage, { type: 'hello' }>, connection: ControlConnection): void {
    switch (message.type) {
      case 'open':
        return this.answer(message.id, connection, () => this.open(message, connection));
      case 'ask':
        return this.answer(message.id, connection, () => this.ask(message));
      case 'prepare':
        return this.answer(message.id, connection, () => this.prepare(connection));
      case 'run':
        return this.answer(message.id, connection, () => this.run(message, connection));
      case 'stop':
        this.runs.get(message.id)?.abort();
        return;
      case 'cancel':
        return void this.cancel(message);
      case 'approval': {
        const { agent, session, turn, approval_id, approved, by, reason } = message;
        const answeredBy = by === 'unaskable' ? 'unaskable' : 'user';
        this.host.core.bus.publish({
          agent,
          session,
          ...(turn ? { turn } : {}),
          type: 'approval.answered',
          data: { approval_id, approved, by: answeredBy, ...(reason ? { reason } : {}) },
        });
        return;
      }
    }
  }

  private answer(id: string, connection: ControlConnection, work: () => Promise<unknown>): void {
    work().then(
      (result) => connection.send({ type: 'done', id, result }),
      (error: unknown) => {
        const refusal =
          error instanceof Refusal ? error : new Refusal('internal', (error as Error)?.message ?? String(error));
        connection.send({ type: 'failed', id, code: refusal.code, message: refusal.message, exit: refusal.exit });
      },
    );
  }

  private async engine(): Promise<Runtime> {
    if (this.closing) throw new Refusal('gateway_stopping', 'the gateway is stopping');
    return this.host.engine();
  }

  /** A conversation: its session's events (and its subagent tasks') are forwarded until the client goes. */
  private async open(message: Request<'open'>, connection: ControlConnection) {
    const engine = await this.engine();
    const agent = message.agent ?? engine.defaultAgent();
    const known = engine.loaded.config.agents.list.map((a) => a.id);
    if (message.agent && known.length > 0 && !known.includes(message.agent)) {
      const listed = `agents.list has: ${known.join(', ')}`;
      throw new Refusal('unknown_agent', `no agent "${message.agent}" (${listed}). Pick one of those with --agent.`);
    }
    const chat = `direct:${message.session}`;
    const key = sessionKeyOf({ agent, channel: 'cli', dimensions: [['chat', chat]] });
    const session = sessionIdOf(key);
    const tasks = new Set<string>();
    const forwarding = this.host.core.bus.events$.subscribe((event) => {
      if (event.type === 'subagent.spawned' && event.session === session) tasks.add(event.data.task_id);
      const ours = event.session === session || (event.task !== undefined && tasks.has(event.task));
      if (ours) connection.send({ type: 'event', event });
    });
    connection.gone.addEventListener('abort', () => forwarding.unsubscribe(), { once: true });
    return { agent, session_key: key, session, chat };
  }

  /** One message of a conversation, answered once its session has handled it (redacted as a chat's reply is). */
  private async ask(message: Request<'ask'>) {
    const engine = await this.engine();
    const request = {
      agent: message.agent,
      session_key: message.session_key,
      channel: 'cli',
      chat: message.chat,
      sender: 'cli',
      message_id: message.message_id,
      text: message.text,
      remote: false,
    };
    return redactorOf(engine.loaded.config).value(await engine.ask(request));
  }

  /** What a first turn needs: the plugins loaded and the MCP servers connected (or named as missing). */
  private async prepare(connection: ControlConnection) {
    const engine = await this.engine();
    await engine.plugins.load();
    await mcpReady(engine.mcp, engine.loaded.config.tools.mcp.connect_timeout_seconds, {
      waiting: (line) => connection.send({ type: 'notice', progress: true, text: line }),
      missing: (line) => connection.send({ type: 'notice', text: line }),
    });
    return {};
  }

  private cancel(message: Request<'cancel'>): void {
    const { agent, session, message_id, reason } = message;
    const data = { reason, ...(message_id ? { message_id } : {}) };
    this.host.core.bus.publish({ agent, session, type: 'turn.abort.requested', data });
    void this.host.engine().then(
      (engine) => engine.subagents.cancelUnder(session, reason),
      () => undefined,
    );
  }

  private async run(message: Request<'run'>, connection: ControlConnection) {
    if (!this.runCommand) throw new Refusal('not_served', 'this gateway runs no commands for the CLI');
    const controller = new AbortController();
    this.runs.set(message.id, controller);
    const gone = (): void => controller.abort();
    connection.gone.addEventListener('abort', gone, { once: true });
    try {
      const code = await this.runCommand(
        { command: message.command, argv: message.argv, cwd: message.cwd },
        {
          write: (stream, text) => connection.send({ type: 'output', id: message.id, stream, text }),
          signal: controller.signal,
        },
      );
      return { code };
    } finally {
      this.runs.delete(message.id);
      connection.gone.removeEventListener('abort', gone);
    }
  }
}

/**
 * Serves the control socket in `AGENT_HOME` for as long as the gateway runs; `close` it before the gateway stops
 * for good. A gateway that cannot listen (another serves this home) runs on without it: the caller logs why.
 */
export async function serveControl(
  host: ControlHost,
  runCommand?: GatewayCommandRunner,
): Promise<{ close(): Promise<void> }> {
  const service = new GatewayControl(host, runCommand);
  const server = await ControlServer.listen(host.core.loaded.home, service).catch((error: unknown) => {
    service.close();
    throw error;
  });
  return {
    close: async () => {
      service.close();
      await server.close();
    },
  };
}
