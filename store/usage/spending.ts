import type { EventStore } from '../log/event-store.js';
import { costOf, type PriceOf, type Tokens } from './prices.js';
import { addTokens, localDay, noTokens, readUsage, UsageFold } from './usage-log.js';

export interface Spent {
  /** Dollars of priced answers on the local day and in the local month of `now`. */
  day: number;
  month: number;
}

/**
 * What each agent has spent, by local day and model, kept current by reading on from where the last look stopped (the
 * type index makes that a few lookups). Tokens are kept, not dollars, so a price changed in the config applies at once.
 */
export class Spending {
  private tokens = new Map<string, Tokens>();
  private fold = new UsageFold();
  private position = 0;

  constructor(private readonly log: EventStore) {}

  spent(agent: string, now: Date, priceOf: PriceOf): Spent {
    this.catchUp();
    const today = localDay(now.getTime());
    const month = today.slice(0, 7);
    const spent: Spent = { day: 0, month: 0 };
    for (const [key, tokens] of this.tokens) {
      const [day, who, model] = key.split('|', 3) as [string, string, string];
      if (who !== agent || !day.startsWith(month)) continue;
      const price = priceOf(model);
      if (!price) continue;
      const cost = costOf(tokens, price);
      spent.month += cost;
      if (day === today) spent.day += cost;
    }
    return spent;
  }

  private catchUp(): void {
    const through = this.log.lastCommittedSeq();
    if (through <= this.position) return;
    // A compaction since may have folded answers read already into a rollup placed before `position`: read afresh.
    for (const _ of this.log.iterate({ type: 'log.compacted', after: this.position, limit: 1 })) {
      this.tokens = new Map();
      this.fold = new UsageFold();
      this.position = 0;
    }
    for (const record of readUsage(this.log, { after: this.position, through }, this.fold)) {
      const key = `${localDay(record.at)}|${record.agent}|${record.model_name}`;
      const sum = this.tokens.get(key) ?? noTokens();
      addTokens(sum, record.tokens);
      this.tokens.set(key, sum);
    }
    this.position = through;
  }
}
