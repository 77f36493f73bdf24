import type { Response } from 'express';
import type { EventStore } from '../../../store/log/event-store.js';
import { sendError } from '../http-error.js';
import type { DashboardHost } from './host.js';

/**
 * The event log once every event published so far is committed (a page reads what the actions it just took
 * recorded), or a 503 answer saying the gateway is stopped (it owns the log).
 */
export async function logOrAnswer(host: DashboardHost, res: Response): Promise<EventStore | undefined> {
  const log = host.log();
  if (!log) sendError(res, 503, 'gateway_stopped', 'the gateway is stopped; start it to read the event log');
  await log?.committed();
  return log;
}
