import { createModelRouter, type ModelRouter, type ModelRouterOptions } from '../../adapters/providers/router.js';
import type { Config } from '../../store/config/index.js';
import { modelEntries } from './models.js';

/**
 * The provider router behind one object that agents keep: a changed `model_list` builds a fresh router
 * (new pools, no resting keys) that the next model call uses, without a restart.
 */
export class ReloadableRouter implements ModelRouter {
  private current: ModelRouter;

  constructor(config: Config, private readonly options: ModelRouterOptions) {
    this.current = this.routerFor(config);
  }

  /** Throws (and keeps the current router) when an entry cannot be used. */
  reload(config: Config): void {
    this.current = this.routerFor(config);
  }

  private routerFor(config: Config): ModelRouter {
    return createModelRouter(modelEntries(config), { budgetMs: config.agents.defaults.model_budget_seconds * 1000, ...this.options });
  }

  chat: ModelRouter['chat'] = (modelName, request, options) => this.current.chat(modelName, request, options);

  describe: ModelRouter['describe'] = () => this.current.describe();
}
