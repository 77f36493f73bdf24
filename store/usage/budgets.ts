import type { Config } from '../config/index.js';
import { pricesOf, roundUsd } from './prices.js';
import type { Spending } from './spending.js';
import { localDay } from './usage-log.js';

export type Budget = NonNullable<Config['agents']['defaults']['budget']>;
export type BudgetPeriod = 'daily' | 'monthly';

/** The budget an agent is held to, and the config path it comes from (its own entry's, else the defaults'). */
export function budgetOf(config: Config, agent: string): { budget: Budget; where: string } | undefined {
  const index = config.agents.list.findIndex((a) => a.id === agent);
  const own = index >= 0 ? config.agents.list[index]?.budget : undefined;
  const budget = own ?? config.agents.defaults.budget;
  if (!budget || (budget.daily === undefined && budget.monthly === undefined)) return undefined;
  return { budget, where: own ? `agents.list[${index}].budget` : 'agents.defaults.budget' };
}

/** One limit of one agent and how much of it is spent, in US dollars. */
export interface BudgetState {
  agent: string;
  period: BudgetPeriod;
  /** The local day (`2026-11-26`) or month (`2026-11`) it counts. */
  span: string;
  limit_usd: number;
  spent_usd: number;
  /** The config path that sets it, e.g. `agents.defaults.budget.daily`. */
  source: string;
}

/**
 * Every limit of the configured agents (`agents.list[]`, or the default agent `main` when the list is empty), as
 * the budget check before a turn sees it: priced answers only, the local day and month of `now`.
 */
export function budgetStates(config: Config, spending: Spending, now: Date): BudgetState[] {
  const agents = config.agents.list.length > 0 ? config.agents.list.map((a) => a.id) : ['main'];
  const priceOf = pricesOf(config);
  const today = localDay(now.getTime());
  return agents.flatMap((agent) => {
    const found = budgetOf(config, agent);
    if (!found) return [];
    const spent = spending.spent(agent, now, priceOf);
    const limits: Array<[BudgetPeriod, number | undefined, number, string]> = [
      ['daily', found.budget.daily, spent.day, today],
      ['monthly', found.budget.monthly, spent.month, today.slice(0, 7)],
    ];
    return limits.flatMap(([period, limit, used, span]) =>
      limit === undefined
        ? []
        : [
            {
              agent,
              period,
              span,
              limit_usd: limit,
              spent_usd: roundUsd(used),
              source: `${found.where}.${period}`,
            },
          ],
    );
  });
}
