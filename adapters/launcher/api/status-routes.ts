import express, { type Router } from 'express';
import * as z from 'zod';
import { LEVELS } from '../../../store/logs/logger.js';
import { sendError } from '../http-error.js';
import { tailLines } from './log-tail.js';
import type { StatusReply } from '../../../bus/api-shapes.js';
import { INVENTORY_KINDS, type DashboardHost } from './host.js';
import { savedConfig } from './saved-config.js';
import { channelCards, mcpCards, modelCards } from './status-cards.js';
import { toolCards } from './tool-cards.js';
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

/** `/logs` (tail with a level filter), `/status` (the Status page's cards) and `/models`, `/tools`, `/mcp`, `/cron`. */
export function statusRoutes(host: DashboardHost): Router {
  const router = express.Router();
  router.get('/logs', (req, res) => {
    const query = parseQuery(logsQuerySchema, req);
    const all = tailLines(host.logFile(), MAX_LINES * 4);
    const kept = query.level ? all.filter(atLeast(query.level)) : all;
    res.json({ file: host.logFile(), lines: kept.slice(-(query.lines ?? 200)) });
  });
  router.get('/status', async (_req, res) => {
    const config = savedConfig(host.configPath());
    if (!config)
      return sendError(res, 409, 'config_invalid', 'the saved config does not load; fix it on the Config page');
    const log = host.log();
    const running = host.gatewayStatus().state === 'running';
    const [tools, cron] = await Promise.all([host.inventory('tools'), host.inventory('cron')]);
    const reply: StatusReply = {
      gateway: host.gatewayStatus().state,
      models: modelCards(config, log),
      channels: channelCards(config, log, running),
      tools: toolCards(tools as Array<{ name: string; description: string }>, config),
      mcp: mcpCards(config, log),
      cron: cron as StatusReply['cron'],
    };
    res.json(reply);
  });
  for (const kind of INVENTORY_KINDS) {
    router.get(`/${kind}`, async (_req, res) => {
      res.json({ [kind]: await host.inventory(kind) });
    });
  }
  return router;
}
