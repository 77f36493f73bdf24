import type { Bus, Correlation } from '../bus/index.js';
import type { Config } from '../store/config/index.js';
import type { EventStore } from '../store/log/event-store.js';
import { dollars, pricesOf } from '../store/usage/prices.js';
import { budgetOf, type Budget, type BudgetPeriod } from '../store/usage/budgets.js';
import { Spending } from '../store/usage/spending.js';
import { localDay } from '../store/usage/usage-log.js';

/** The share of a budget at which the agent's replies start saying so. */
export const WARN_AT = 0.8;

export type BudgetVerdict = { kind: 'go'; notice?: string } | { kind: 'stop'; text: string };

/**
 * Budgets (`agents.defaults.budget`, or an `agents.list[]` entry's own) checked before a turn starts: a spent budget
 * stops the turn with a clear answer (`budget.reached`), 80% of one adds a notice to the reply once per period
 * (`budget.warned`). Spending counts priced answers only (see `tern usage`).
 */
export class BudgetGuard {
  private readonly spending: Spending;
  private warned: Set<string> | undefined;

  constructor(
    private readonly log: EventStore,
    private readonly bus: Bus,
    private readonly config: () => Config,
    private readonly now: () => Date,
  ) {
    this.spending = new Spending(log);
  }

  /** The verdict for a turn of `agent` about to start; undefined at once when the agent has no budget. */
  check(agent: string, correlation: Correlation): Promise<BudgetVerdict> | undefined {
    const config = this.config();
    const found = budgetOf(config, agent);
    return found ? this.judge(agent, correlation, config, found.budget, found.where) : undefined;
  }

  private async judge(
    agent: string,
    correlation: Correlation,
    config: Config,
    budget: Budget,
    where: string,
  ): Promise<BudgetVerdict> {
    // This process's last answers are in the log once committed.
    await this.log.committed();
    const now = this.now();
    const spent = this.spending.spent(agent, now, pricesOf(config));
    const today = localDay(now.getTime());
    const limits: Array<{ period: BudgetPeriod; limit: number | undefined; spent: number; span: string }> = [
      { period: 'daily', limit: budget.daily, spent: spent.day, span: today },
      { period: 'monthly', limit: budget.monthly, spent: spent.month, span: today.slice(0, 7) },
    ];
    for (const { period, limit, spent: used, span } of limits) {
      if (limit === undefined || used < limit) continue;
      this.bus.publish({
        ...correlation,
        type: 'budget.reached',
        data: { period, span, limit_usd: limit, spent_usd: used },
      });
      const until = period === 'daily' ? 'tomorrow' : 'next month';
      const when = period === 'daily' ? 'today' : 'this month';
      return {
        kind: 'stop',
        text:
          `The ${period} budget of agent ${agent} is spent: ${dollars(used)} of ${dollars(limit)} ${when}. ` +
          `No new turn starts until ${until}; to go on now, raise ${where}.${period} in the config.`,
      };
    }
    const notices = limits.flatMap(({ period, limit, spent: used, span }) => {
      if (limit === undefined || used < limit * WARN_AT || !this.firstWarning(agent, period, span)) return [];
      this.bus.publish({
        ...correlation,
        type: 'budget.warned',
        data: { period, span, limit_usd: limit, spent_usd: used },
      });
      return [
        `agent ${agent} has spent ${dollars(used)} of its ${dollars(limit)} ` +
          `${period} budget (${Math.floor((used / limit) * 100)}%)`,
      ];
    });
    return notices.length > 0 ? { kind: 'go', notice: `(Budget: ${notices.join('; ')}.)` } : { kind: 'go' };
  }

  /** Whether this warning is new: once per agent, budget and period, also across restarts (the log has them). */
  private firstWarning(agent: string, period: BudgetPeriod, span: string): boolean {
    this.warned ??= new Set(
      this.log
        .read({ type: 'budget.warned' })
        .flatMap((e) => (e.type === 'budget.warned' ? [`${e.agent}|${e.data.period}|${e.data.span}`] : [])),
    );
    const key = `${agent}|${period}|${span}`;
    if (this.warned.has(key)) return false;
    this.warned.add(key);
    return true;
  }
}
