import express, { type Router } from 'express';
import { sendError } from '../http-error.js';
import type { ActorBoard } from './actor-board.js';
import type { DashboardHost } from './host.js';

/** `/actors` (every live actor), `/actors/:id` (one with its chart) and `/machines` (every chart). */
export function actorsRoutes(host: DashboardHost, board: ActorBoard): Router {
  const router = express.Router();
  router.get('/actors', (_req, res) => {
    res.json({ gateway: host.gatewayStatus(), actors: board.list().map(({ history: _history, ...rest }) => rest) });
  });
  router.get('/actors/:id', (req, res) => {
    const actor = board.get(req.params.id);
    if (!actor) return sendError(res, 404, 'actor_not_found', `no live actor ${req.params.id}`);
    res.json({ ...actor, chart: host.charts()[actor.machine] ?? null });
  });
  router.get('/machines', (_req, res) => {
    res.json({ machines: host.charts() });
  });
  return router;
}
