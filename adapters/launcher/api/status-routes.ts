import express, { type Router } from 'express';
import * as z from 'zod';
import { LEVELS } from '../../../store/logs/logger.js';
import { tailLines } from './log-tail.js';
import { INVENTORY_KINDS, type DashboardHost } from './host.js';
import { parseQuery } from './query.js';

const MAX_LINES = 2000;

const logsQuerySchema = z
  .object({
    level: z.enum(LEVELS, { error: `level must be one of ${LEVELS.join(', ')}` }).optional(),
    lines: z
      .string()
      .regex(/^\d+$/, { error: 'lines must be a whole number' })
      .transform(Number)
      .pipe(
        z
          .number()
          .int()
          .min(1, { error: `lines must be from 1 to ${MAX_LINES}` })
          .max(MAX_LINES, { error: `lines must be from 1 to ${MAX_LINES}` }),
      )
      .optional(),
  })
  .strict();

/** A line's level is the word after its timestamp (`2026-… INFO message`). */
function atLeast(level: (typeof LEVELS)[number]) {
  const wanted = new Set(LEVELS.slice(LEVELS.indexOf(level)).map((l) => l.toUpperCase()));
  return (line: string): boolean => wanted.has(line.split(' ', 2)[1] ?? '');
}

/** `/logs` (tail with a level filter) and `/models`, `/tools`, `/skills`, `/mcp`, `/cron`. */
export function statusRoutes(host: DashboardHost): Router {
  const router = express.Router();
  router.get('/logs', (req, res) => {
    const query = parseQuery(logsQuerySchema, req);
    const all = tailLines(host.logFile(), MAX_LINES * 4);
    const kept = query.level ? all.filter(atLeast(query.level)) : all;
    res.json({ file: host.logFile(), lines: kept.slice(-(query.lines ?? 200)) });
  });
  for (const kind of INVENTORY_KINDS) {
    router.get(`/${kind}`, async (_req, res) => {
      res.json({ [kind]: await host.inventory(kind) });
    });
  }
  return router;
}
