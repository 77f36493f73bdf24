import { isAbsolute, join } from 'node:path';
import type { Subscription } from 'rxjs';
import { ProcessHook } from '../../adapters/hooks/process-hook.js';
import { draftOf, type Bus, type Correlation, type Hook, type HookMeta, type HookPoint } from '../../bus/index.js';
import type { Config, ProcessHookEntry } from '../../store/config/index.js';
import { expandHome } from '../../store/paths.js';
import { ApprovalDesk } from './approval-desk.js';
import { anyApprovals, requiresApproval } from './approval-rules.js';
import { HookSet, type HookLog } from './hook-set.js';
import { liveDecisions, type ChatApprover } from './live-decisions.js';
import { observeBus } from './observers.js';
import { TurnHooks } from './turn-hooks.js';

export interface HookEngineDeps {
  bus: Bus;
  config: () => Config;
  /** `AGENT_HOME`: a relative `dir` of a process hook is taken from here. */
  home: string;
  env: NodeJS.ProcessEnv;
  log: HookLog;
  /** Masks secrets in what hooks hand the model, the chat or the log. */
  clean: (text: string) => string;
  now?: () => number;
}

/** What a turn tells the engine about itself. */
export interface TurnContext {
  keys: Correlation & { turn: string };
  meta: HookMeta;
  offered: (name: string) => boolean;
  /** The sender of the message the turn answers: who may approve its calls (besides the channel's owners). */
  asker?: string;
}

function processHookOf(name: string, entry: ProcessHookEntry, deps: HookEngineDeps): ProcessHook {
  const dir =
    entry.dir === undefined
      ? undefined
      : isAbsolute(expandHome(entry.dir))
        ? expandHome(entry.dir)
        : join(deps.home, entry.dir);
  const env = Object.fromEntries(Object.entries(entry.env).map(([key, value]) => [key, value.reveal()]));
  return new ProcessHook(
    {
      name,
      priority: entry.priority,
      command: entry.command,
      dir,
      env,
      observe: entry.observe,
      intercept: entry.intercept as HookPoint[],
    },
    {
      log: deps.log,
      processEnv: deps.env,
      onDown: (reason, restartInMs) =>
        deps.log('warn', 'process hook went down; restarting it', { hook: name, reason, restart_in_ms: restartInMs }),
    },
  );
}

/**
 * The hooks of one process: the configured process hooks (started here, restarted when they die), plugins'
 * in-process hooks (added later), the observer fan-out of every bus event, and the approval desk. A turn gets a
 * `TurnHooks` pipeline only when some hook intercepts or some tool needs approval; otherwise its model and tool
 * calls go straight through.
 */
export class HookEngine {
  readonly set: HookSet;
  readonly desk: ApprovalDesk;
  private readonly observing: Subscription;
  private readonly processes: ProcessHook[] = [];

  constructor(private readonly deps: HookEngineDeps) {
    this.set = new HookSet(() => deps.config().hooks.defaults, deps.log);
    this.desk = new ApprovalDesk(deps.bus);
    const { hooks } = deps.config();
    if (hooks.enabled) {
      for (const [name, entry] of Object.entries(hooks.processes)) {
        if (!entry.enabled) continue;
        const hook = processHookOf(name, entry, deps);
        this.processes.push(hook);
        this.set.add(hook);
        hook.start();
      }
    }
    this.observing = observeBus(deps.bus, this.set, deps.log);
  }

  /** Resolves once every configured process hook has answered `hook.hello` (rejects when `signal` aborts first). */
  async ready(signal: AbortSignal): Promise<void> {
    await Promise.all(this.processes.map((hook) => hook.started(signal)));
  }

  /** A configured process hook, for a look at its restarts. */
  processHook(name: string): ProcessHook | undefined {
    return this.processes.find((hook) => hook.name === name);
  }

  /** A plugin's hook joins the others in priority order; with `hooks.enabled` false it is left out. */
  add(hook: Hook): boolean {
    if (!this.deps.config().hooks.enabled) return false;
    this.set.add(hook);
    return true;
  }

  async remove(name: string): Promise<void> {
    await this.set.remove(name)?.close();
  }

  /** Whether turns need a hook pipeline now: some hook intercepts, or some tool needs approval. */
  active(): boolean {
    return this.set.intercepting() || anyApprovals(this.deps.config());
  }

  /** The pipeline of one turn; ask `active()` first (a turn without hooks or approvals goes without). */
  forTurn({ keys, meta, offered, asker }: TurnContext): TurnHooks {
    const { deps } = this;
    const where = { keys, channel: meta.channel, chat: meta.chat, ...(asker !== undefined ? { asker } : {}) };
    const chat: ChatApprover = {
      required: (call) => requiresApproval(deps.config(), call.name),
      ask: (call, signal) => {
        const timeoutMs = deps.config().hooks.defaults.approval_timeout_ms;
        return this.desk.ask({ ...where, call, timeoutMs, clean: deps.clean }, signal);
      },
    };
    return new TurnHooks({
      source: liveDecisions(this.set, chat),
      record: (decided) => deps.bus.publish(draftOf(keys, 'hook.decided', decided)),
      meta,
      offered,
      clean: deps.clean,
      now: deps.now ?? Date.now,
    });
  }

  async close(): Promise<void> {
    this.observing.unsubscribe();
    this.desk.close();
    await this.set.close();
  }
}
