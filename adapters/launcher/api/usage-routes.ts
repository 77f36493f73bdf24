import { existsSync } from 'node:fs';
import express, { type Router } from 'express';
import { z } from 'zod';
import { validateConfig } from '../../../store/config/index.js';
import { readText } from '../../../store/config/files.js';
import { pricesOf, type PriceOf } from '../../../store/usage/prices.js';
import { parseSince, readUsage, summarizeUsage, USAGE_BY, usageRowJson, UsageSinceError, type UsageBy } from '../../../store/usage/usage-log.js';
import type { DashboardHost } from './host.js';
import { logOrAnswer } from './log-access.js';
import { parseQuery, QueryError } from './query.js';

const usageQuerySchema = z.object({
  since: z.string().min(1).optional(),
  by: z.enum(USAGE_BY as [UsageBy, ...UsageBy[]], { error: `by must be one of ${USAGE_BY.join(', ')}` }).optional(),
}).strict();

/** Prices from the saved config (its `model_list[].pricing`, else the built-in ones); none while it does not parse. */
function pricesFrom(path: string): PriceOf {
  if (!existsSync(path)) return () => undefined;
  try {
    const validation = validateConfig(JSON.parse(readText(path)) as unknown);
    return validation.ok ? pricesOf(validation.config) : () => undefined;
  } catch {
    return () => undefined;
  }
}

/**
 * `GET /usage?since&by`: tokens and cost of the model answers in the log, by day (default), agent, session or model,
 * as `tern usage --json` answers (the same projection, `store/usage`).
 */
export function usageRoutes(host: DashboardHost): Router {
  const router = express.Router();
  router.get('/usage', async (req, res) => {
    const query = parseQuery(usageQuerySchema, req);
    let since: number | undefined;
    try {
      since = query.since === undefined ? undefined : parseSince(query.since, new Date());
    } catch (error) {
      if (error instanceof UsageSinceError) throw new QueryError(`since: ${error.message}`);
      throw error;
    }
    const log = await logOrAnswer(host, res);
    if (!log) return;
    const by = query.by ?? 'day';
    const summary = summarizeUsage(readUsage(log, since === undefined ? {} : { since }), by, pricesFrom(host.configPath()));
    res.json({
      by,
      ...(since !== undefined ? { since: new Date(since).toISOString() } : {}),
      rows: summary.rows.map(usageRowJson),
      total: usageRowJson(summary.total),
      unpriced_models: summary.unpriced_models,
    });
  });
  return router;
}
