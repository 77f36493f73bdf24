import express, { type Router } from 'express';
import * as z from 'zod';
import type { UsageReport } from '../../../bus/api-shapes.js';
import type { EventStore } from '../../../store/log/event-store.js';
import { budgetStates } from '../../../store/usage/budgets.js';
import { pricesOf } from '../../../store/usage/prices.js';
import { Spending } from '../../../store/usage/spending.js';
import {
  parseSince,
  readUsage,
  summarizeUsage,
  USAGE_BY,
  usageRowJson,
  UsageSinceError,
  type UsageBy,
} from '../../../store/usage/usage-log.js';
import type { DashboardHost } from './host.js';
import { logOrAnswer } from './log-access.js';
import { savedConfig } from './saved-config.js';
import { parseQuery, QueryError } from './query.js';

const usageQuerySchema = z
  .object({
    since: z.string().min(1).optional(),
    by: z.enum(USAGE_BY as [UsageBy, ...UsageBy[]], { error: `by must be one of ${USAGE_BY.join(', ')}` }).optional(),
  })
  .strict();

/**
 * `GET /usage?since&by`: tokens and cost of the model answers in the log, by day (default), hour, agent, session or
 * model, as `tern usage --json` answers (the same projection, `store/usage`), with each budget's state as the check
 * before a turn sees it.
 */
export function usageRoutes(host: DashboardHost): Router {
  const router = express.Router();
  // Kept per log, so a request reads only the answers recorded since the last one.
  let spending: { log: EventStore; of: Spending } | undefined;
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
    const config = savedConfig(host.configPath());
    const summary = summarizeUsage(
      readUsage(log, since === undefined ? {} : { since }),
      by,
      config ? pricesOf(config) : () => undefined,
    );
    if (spending?.log !== log) spending = { log, of: new Spending(log) };
    const report: UsageReport = {
      by,
      ...(since !== undefined ? { since: new Date(since).toISOString() } : {}),
      currency: 'USD',
      rows: summary.rows.map(usageRowJson),
      total: usageRowJson(summary.total),
      unpriced_models: summary.unpriced_models,
      budgets: config ? budgetStates(config, spending.of, new Date()) : [],
    };
    res.json(report);
  });
  return router;
}
