import type { Observable } from 'rxjs';
import type { Envelope, EventDraft, EventType } from '../../../bus/index.js';
import type { EventStore } from '../../../store/log/event-store.js';
import type { ChartNode, GatewayStatus, MemorySearch, Rerun } from '../../../bus/api-shapes.js';
import type { PicoEndpoint } from '../../channels/pico/endpoint.js';
import type { SkillsHost } from './skills-host.js';

export type { ChartNode, ChartTransition, GatewayStatus, Rerun } from '../../../bus/api-shapes.js';

export const GATEWAY_ACTIONS = ['start', 'stop', 'restart'] as const;
export type GatewayAction = (typeof GATEWAY_ACTIONS)[number];

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
  /** The event log while the gateway runs; in a cluster (#27) the cluster log, every gateway's events. */
  log(): EventStore | undefined;
  /** Bus events of whichever gateway runs now; it keeps flowing across restarts. */
  events$: Observable<Envelope>;
  /** What `/api/live` streams: `events$`, or in a cluster every gateway's events as the cluster log receives them. */
  shown$: Observable<Envelope>;
  /**
   * What the machines board folds: `events$`, or in a cluster the cluster log's actor events from its start (members
   * started before this dashboard did), then live.
   */
  board$: Observable<Envelope>;
  publish<T extends EventType>(draft: EventDraft<T>): boolean;
  /**
   * Runs `/clear` in the session that `started` opened, as its own channel would; false when the gateway is stopped.
   */
  clearSession(started: Envelope<'turn.started'>): Promise<boolean>;
  rerun(events: Envelope[]): Promise<Rerun>;
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
  /**
   * Models, tools, MCP servers, cron jobs and plugins (name, version, state, reason, path) as plain JSON, secrets
   * masked.
   */
  inventory(kind: InventoryKind): Promise<unknown[]>;
  /** The workspace whose `cron/` database `tern cron` uses, as the saved config names it (none if it does not load). */
  cronWorkspace(): string | undefined;
  skills: SkillsHost;
  /** Recall over every chat of `agent` (default: the default one), as `tern memory search`; undefined when stopped. */
  searchMemory(query: string, limit: number, agent?: string): Promise<MemorySearch | undefined>;
}

/** `/api/skills` has routes of its own (`skills-routes.ts`). */
export const INVENTORY_KINDS = ['models', 'tools', 'mcp', 'cron', 'plugins'] as const;
export type InventoryKind = (typeof INVENTORY_KINDS)[number];
