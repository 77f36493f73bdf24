import express, { type Router } from 'express';
import { sendError } from '../http-error.js';
import * as z from 'zod';
import { finishedWork, type Actor, type ActorView } from '../../../bus/api-shapes.js';
import { parseQuery } from './query.js';
import type { ActorBoard } from './actor-board.js';
import type { DashboardHost } from './host.js';
import type { SessionIndex } from './session-index.js';

const actorsQuerySchema = z
  .object({ live: z.enum(['true', 'false'], { error: 'live must be true or false' }).optional() })
  .strict();

/**
 * `/actors` (every actor on the board, with `?live=true` without the turns and subagents that ended; the gateway's
 * status; each session actor's key), `/actors/:id` (one with its history and chart) and `/machines` (every chart).
 */
export function actorsRoutes(host: DashboardHost, board: ActorBoard, index: SessionIndex): Router {
  const router = express.Router();
  // A session that opened before the dashboard followed the bus has its key in the log.
  const withKey = (actor: ActorView): ActorView => {
    if (actor.machine !== 'session' || actor.session_key || !actor.session) return actor;
    const log = host.log();
    const key = log ? index.sessionKey(log, actor.session) : undefined;
    return key ? { ...actor, session_key: key } : actor;
  };
  router.get('/actors', (req, res) => {
    const { live } = parseQuery(actorsQuerySchema, req);
    const listed = live === 'true' ? board.list().filter((actor) => !finishedWork(actor)) : board.list();
    const actors = listed.map((actor): Actor => {
      const { history, ...rest } = withKey(actor);
      const from = history.at(-1)?.from;
      return from ? { ...rest, from } : rest;
    });
    res.json({ gateway: host.gatewayStatus(), actors });
  });
  router.get('/actors/:id', (req, res) => {
    const actor = board.get(req.params.id);
    if (!actor) return sendError(res, 404, 'actor_not_found', `no live actor ${req.params.id}`);
    res.json({ ...withKey(actor), chart: host.charts()[actor.machine] ?? null });
  });
  router.get('/machines', (_req, res) => {
    res.json({ machines: host.charts() });
  });
  return router;
}
