import express, { type Router } from 'express';
import * as z from 'zod';
import type { DashboardHost } from './host.js';
import { logOrAnswer } from './log-access.js';
import { parseQuery } from './query.js';
import { TurnIndex } from './turn-index.js';

const MAX_PAGE = 100;

const whole = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, { error: `${name} must be a whole number` })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, { error: `${name} must be from ${min} to ${max}` })
        .max(max, { error: `${name} must be from ${min} to ${max}` }),
    );

const turnsQuerySchema = z
  .object({
    q: z.string().max(200, { error: 'q must be at most 200 characters' }).optional(),
    finished: z.enum(['true', 'false'], { error: 'finished must be true or false' }).optional(),
    offset: whole('offset', 0, Number.MAX_SAFE_INTEGER).optional(),
    limit: whole('limit', 1, MAX_PAGE).optional(),
  })
  .strict();

/** `GET /turns?q&finished&offset&limit`: the log's turns, newest first, a page at a time, with how many match. */
export function turnsRoutes(host: DashboardHost): Router {
  const router = express.Router();
  const index = new TurnIndex();
  router.get('/turns', async (req, res) => {
    const query = parseQuery(turnsQuerySchema, req);
    const log = await logOrAnswer(host, res);
    if (!log) return;
    const offset = query.offset ?? 0;
    const limit = query.limit ?? 20;
    res.json({
      ...index.page(log, {
        ...(query.q ? { q: query.q } : {}),
        finished: query.finished === 'true',
        offset,
        limit,
      }),
      offset,
      limit,
    });
  });
  return router;
}
