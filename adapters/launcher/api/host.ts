import type { Observable } from 'rxjs';
import type { Envelope, EventDraft, EventType } from '../../../bus/index.js';
import type { EventLog } from '../../../store/log/event-log.js';
import type { PicoEndpoint } from '../pico-endpoint.js';

/**
 * What a rerun reports: the replay actor's answer; where it diverges, `seq` is the recorded event at `index`
 * (the index counts only the events a turn machine records), absent when the new run recorded more.
 */
export type RerunView =
  | { identical: true; compared: number }
  | { identical: false; index: number; seq?: number; expected?: { type: string; data: unknown }; actual?: { type: string; data: unknown } };

export const GATEWAY_ACTIONS = ['start', 'stop', 'restart'] as const;
export type GatewayAction = (typeof GATEWAY_ACTIONS)[number];

/** `failure` says why the last start failed (an invalid config, say); `starting` and `stopping` are on the way. */
export type GatewayStatus =
  | { state: 'running'; since: number }
  | { state: 'starting' | 'stopping'; since: number }
  | { state: 'stopped'; since: number; failure?: string };

/**
 * One move of a state chart: `event` leads to `target` (a state's path below the machine's root, e.g.
 * `showing.message_updated`; none when the move only runs actions), chosen by `guards` where one event has
 * several targets.
 */
export type ChartTransition = { event: string; target?: string; guards: string[] };

/** A state chart as the machines page draws it: nested states in definition order, each with its moves. */
export type ChartNode = { key: string; initial?: string; final: boolean; states: ChartNode[]; transitions: ChartTransition[] };

export type ModelTest = { ok: true; reply: string } | { ok: false; code: string; message: string };

/**
 * Everything the dashboard needs from the running gateway, provided by the composition root: the launcher
 * reads the store and the bus through it and never reaches into actors.
 */
export interface DashboardHost {
  /** `config.json` as the gateway reads it. */
  configPath(): string;
  /** `logs/gateway.log`. */
  logFile(): string;
  /** The event log while the gateway runs. */
  log(): EventLog | undefined;
  /** Bus events of whichever gateway runs now; it keeps flowing across restarts. */
  events$: Observable<Envelope>;
  publish<T extends EventType>(draft: EventDraft<T>): boolean;
  /** Runs `/clear` in the session that `started` opened, as its own channel would; false when the gateway is stopped. */
  clearSession(started: Envelope<'turn.started'>): Promise<boolean>;
  rerun(events: Envelope[]): Promise<RerunView>;
  /** `/pico/ws`: the web-UI channel's sockets, handed to the gateway's `pico` channel while it runs. */
  chatEndpoint: PicoEndpoint;
  gatewayStatus(): GatewayStatus;
  /** The gateway's status now and at every change, also while it is stopped (when its bus is gone). */
  status$: Observable<GatewayStatus>;
  /** Publishes `gateway.<action>.requested` and resolves once the supervisor has answered it. */
  requestGateway(action: GatewayAction, by: string): Promise<GatewayStatus>;
  charts(): Record<string, ChartNode>;
  /** Restarts the gateway on the saved config and asks this model one short question. */
  testModel(modelName: string): Promise<ModelTest>;
  /** Models, tools, skills, MCP servers and cron jobs as plain JSON, secrets masked. */
  inventory(kind: InventoryKind): Promise<unknown[]>;
}

export const INVENTORY_KINDS = ['models', 'tools', 'skills', 'mcp', 'cron'] as const;
export type InventoryKind = (typeof INVENTORY_KINDS)[number];
