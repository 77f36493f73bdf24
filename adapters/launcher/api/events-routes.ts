import express, { type Router } from 'express';
import { sendError } from '../http-error.js';
import type { DashboardHost } from './host.js';
import { logOrAnswer } from './log-access.js';
import { eventsQuerySchema, parseQuery } from './query.js';
import { childTimelines } from '../../../store/log/child-timelines.js';
import { turnUsage } from '../../../store/usage/usage-log.js';
import type { TurnView } from '../../../bus/api-shapes.js';
import { savedPrices } from './saved-config.js';
import { childViews, spansOf } from './timeline.js';

const DEFAULT_LIMIT = 200;

/**
 * `/events` (filtered), `/turns/:id` (timeline, with the timelines of its subagents, and its tokens and cost) and
 * `POST /turns/:id/rerun`.
 */
export function eventsRoutes(host: DashboardHost): Router {
  const router = express.Router();
  router.get('/events', async (req, res) => {
    const query = parseQuery(eventsQuerySchema, req);
    const log = await logOrAnswer(host, res);
    if (!log) return;
    const events = log.read({ ...query, limit: query.limit ?? DEFAULT_LIMIT, order: query.order ?? 'desc' });
    res.json({ events, last_seq: log.lastCommittedSeq() });
  });
  router.get('/turns/:id', async (req, res) => {
    const log = await logOrAnswer(host, res);
    if (!log) return;
    const events = log.read({ turn: req.params.id });
    if (events.length === 0) return sendError(res, 404, 'turn_not_found', `no turn ${req.params.id} in the event log`);
    const origin = events.find((e) => e.type === 'turn.started')?.at ?? events[0]!.at;
    const priceOf = savedPrices(host.configPath());
    const view: TurnView = {
      turn: req.params.id,
      ...(events[0]?.session ? { session: events[0].session } : {}),
      events,
      spans: spansOf(events, priceOf),
      children: childViews(childTimelines(log, events), origin, priceOf),
      usage: turnUsage(log, req.params.id, priceOf),
    };
    res.json(view);
  });
  router.post('/turns/:id/rerun', async (req, res) => {
    const log = await logOrAnswer(host, res);
    if (!log) return;
    const events = log.read({ turn: req.params.id });
    if (events.length === 0) return sendError(res, 404, 'turn_not_found', `no turn ${req.params.id} in the event log`);
    try {
      res.json(await host.rerun(events));
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      sendError(res, 409, typeof code === 'string' ? code : 'rerun_failed', (error as Error).message);
    }
  });
  return router;
}
