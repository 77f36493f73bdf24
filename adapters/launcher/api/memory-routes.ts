import express, { type Router } from 'express';
import * as z from 'zod';
import { sendError } from '../http-error.js';
import type { DashboardHost } from './host.js';
import { logOrAnswer } from './log-access.js';
import { parseQuery } from './query.js';

const memoryQuerySchema = z
  .object({
    q: z.string({ error: 'q is required: the words to look for' }).trim().min(1, { error: 'q must not be empty' }),
    limit: z
      .string()
      .regex(/^([1-9]|[1-4]\d|50)$/, { error: 'limit must be a whole number from 1 to 50' })
      .transform(Number)
      .optional(),
    agent: z.string().min(1).optional(),
  })
  .strict();

/** `/memory/search?q=`: recall over the memory files and every past chat of the agent (the dashboard's search box). */
export function memoryRoutes(host: DashboardHost): Router {
  const router = express.Router();
  router.get('/memory/search', async (req, res) => {
    const query = parseQuery(memoryQuerySchema, req);
    // What was just recorded is found: recall opens on the log once it holds every event published so far.
    if (!(await logOrAnswer(host, res))) return;
    const found = await host.searchMemory(query.q, query.limit ?? 10, query.agent);
    if (!found) return sendError(res, 503, 'gateway_stopped', 'the gateway is stopped; start it to search its memory');
    res.json(found);
  });
  return router;
}
