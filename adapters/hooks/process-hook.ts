import {
  typeMatcher,
  type Envelope,
  type Hook,
  type HookDecision,
  type HookInput,
  type HookPoint,
} from '../../bus/index.js';
import { RpcError } from './line-rpc.js';
import { SupervisedChild, type ChildLog } from './supervised-child.js';
import { decisionFromWire, wireParams } from './wire.js';

export interface ProcessHookSpec {
  name: string;
  priority: number;
  command: readonly string[];
  dir?: string;
  env: Record<string, string>;
  /** Event types or globs it observes; absent: not an observer; empty, `*` or `all`: every event. */
  observe?: readonly string[];
  intercept: readonly HookPoint[];
}

export interface ProcessHookOptions {
  log: ChildLog;
  processEnv?: NodeJS.ProcessEnv;
  backoff?: { baseMs: number; maxMs: number };
  onDown?: (reason: string, restartInMs: number) => void;
  onReady?: () => void;
}

/** The peer runtime's hello modes: what the process is asked for. */
export function helloModes(intercept: readonly HookPoint[], observes: boolean): string[] {
  const modes: string[] = [];
  if (observes) modes.push('observe');
  if (intercept.some((p) => p === 'before_llm' || p === 'after_llm')) modes.push('llm');
  if (intercept.some((p) => p === 'before_tool' || p === 'after_tool')) modes.push('tool');
  if (intercept.includes('approve_tool')) modes.push('approve');
  return modes;
}

/** The peer runtime's event kind names, as configs written for it use them in `observe`, and Tern's types for them. */
const PEER_KINDS: Readonly<Record<string, string>> = {
  turn_start: 'turn.started',
  turn_end: 'turn.completed,turn.stopped,turn.failed,turn.aborted',
  llm_request: 'provider.requested',
  llm_delta: 'provider.chunk',
  llm_response: 'provider.responded',
  llm_retry: 'provider.retried',
  session_summarize: 'summary.written',
  tool_exec_start: 'tool.requested',
  tool_exec_end: 'tool.completed',
  message_received: 'message.received',
  message_sent: 'message.sent',
  error: 'turn.failed,provider.failed',
};

function observeMatcher(observe: readonly string[] | undefined): (type: string) => boolean {
  if (!observe) return () => false;
  if (observe.length === 0 || observe.some((p) => p === '*' || p === 'all')) return () => true;
  return typeMatcher(observe.map((p) => PEER_KINDS[p] ?? p).join(','));
}

/**
 * A hook answered by a child process over JSON-RPC: `hook.event` notifications for observed events, a
 * `hook.<point>` request per interception. Asks made while the process is down wait for it within their own time
 * limit; events are not held back for it.
 */
export class RpcHook implements Hook {
  private readonly matches: (type: string) => boolean;

  constructor(
    readonly name: string,
    readonly priority: number,
    protected readonly child: SupervisedChild<unknown>,
    private readonly intercept: readonly HookPoint[],
    observe: readonly string[] | undefined,
  ) {
    this.matches = observeMatcher(observe);
  }

  intercepts(point: HookPoint): boolean {
    return this.intercept.includes(point);
  }

  observes(type: string): boolean {
    return this.matches(type);
  }

  /**
   * One that does not take the event into its input within `timeoutMs` is late (the event still reaches it, in order).
   */
  async observe(event: Envelope, timeoutMs: number): Promise<void> {
    const running = this.child.current();
    if (!running) throw new RpcError('rpc_closed', `the process is not running (${this.child.down ?? 'starting'})`);
    const handed = running.rpc.notify('hook.event', event);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new RpcError('rpc_aborted', `the event took longer than ${timeoutMs} ms to reach the process`)),
        timeoutMs,
      );
    });
    try {
      await Promise.race([handed, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async decide(input: HookInput, signal: AbortSignal): Promise<HookDecision> {
    const { rpc } = await this.child.ready(signal);
    return decisionFromWire(input, await rpc.request(`hook.${input.point}`, wireParams(input), signal));
  }

  close(): Promise<void> {
    return this.child.stop();
  }
}

/**
 * A configured process hook (`hooks.processes.<name>`): a child process speaking JSON-RPC 2.0 over stdio, one
 * object per line, `hook.hello` first. One that dies is started again with backoff.
 */
export class ProcessHook extends RpcHook {
  constructor(
    readonly spec: ProcessHookSpec,
    options: ProcessHookOptions,
  ) {
    const child = new SupervisedChild(
      { name: `hook ${spec.name}`, command: spec.command, dir: spec.dir, env: spec.env },
      {
        handshake: (rpc, signal) =>
          rpc.request(
            'hook.hello',
            { name: spec.name, version: 1, modes: helloModes(spec.intercept, spec.observe !== undefined) },
            signal,
          ),
        log: options.log,
        processEnv: options.processEnv,
        backoff: options.backoff,
        onDown: options.onDown,
        onReady: options.onReady,
      },
    );
    super(spec.name, spec.priority, child, spec.intercept, spec.observe);
  }

  /** How many times the process was started again after going down. */
  get restarts(): number {
    return this.child.restarts;
  }

  start(): void {
    this.child.start();
  }

  /** Resolves once the process has answered `hook.hello` (or `signal` aborts). */
  async started(signal: AbortSignal): Promise<void> {
    await this.child.ready(signal);
  }
}
