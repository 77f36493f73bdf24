import { createModelRouter, type ModelRouter, type ModelRouterOptions } from '../../adapters/providers/router.js';
import type { Config } from '../../store/config/index.js';
import { modelEntries } from './models.js';

/**
 * The provider router behind one object that agents keep: a changed `model_list` builds a fresh router
 * (new pools, no resting keys) that the next model call uses, without a restart.
 */
export class ReloadableRouter implements ModelRouter {
  private current: ModelRouter;

  constructor(
    config: Config,
    private readonly options: ModelRouterOptions,
  ) {
    this.current = this.routerFor(config);
  }

  /** Throws (and keeps the current router) when an entry cannot be used. */
  reload(config: Config): void {
    this.current = this.routerFor(config);
  }

  private routerFor(config: Config): ModelRouter {
    return createModelRouter(modelEntries(config), { ...routerSettings(config), ...this.options });
  }

  chat: ModelRouter['chat'] = (modelName, request, options) => this.current.chat(modelName, request, options);

  describe: ModelRouter['describe'] = () => this.current.describe();
}

/** What `agents.defaults` says about every model call: its time budget, sampling, answer length and retries. */
export function routerSettings(config: Config): ModelRouterOptions {
  const defaults = config.agents.defaults;
  return {
    budgetMs: defaults.model_budget_seconds * 1000,
    ...(defaults.temperature !== undefined ? { temperature: defaults.temperature } : {}),
    ...(defaults.max_tokens !== undefined ? { maxTokens: defaults.max_tokens } : {}),
    ...(defaults.max_llm_retries !== undefined ? { maxAttempts: defaults.max_llm_retries + 1 } : {}),
    ...(defaults.llm_retry_backoff_secs !== undefined ? { baseDelayMs: defaults.llm_retry_backoff_secs * 1000 } : {}),
  };
}
