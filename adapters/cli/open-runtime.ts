import { join } from 'node:path';
import { Runtime } from '../../actors/runtime.js';
import { keepFrontmatterIn } from '../../store/frontmatter-yaml.js';
import { LogError } from '../../store/log/errors.js';
import { undiciCore } from '../http/undici.js';
import { CliError } from './errors.js';
import { loadConfigForCli } from './load-config.js';

export interface RunOptions {
  /** A `model_name` to use instead of `agents.defaults.model`. */
  model?: string;
  /** Every model streams its answers (a chat on a terminal shows the reply as it is written). */
  stream?: boolean;
}

/** A runtime for a command that runs turns itself; a running gateway owns the log, so say so clearly. */
export function openRuntime(env: NodeJS.ProcessEnv, command: string, { model, stream }: RunOptions = {}): Runtime {
  const loaded = loadConfigForCli(env);
  if (!loaded.config.model_list.some((m) => m.enabled)) {
    throw new CliError(
      'no_model',
      'no model to talk to',
      `model_list in ${loaded.path} has no enabled entry`,
      'Add one, e.g. {"model_name": "fast", "provider": "openai", "model": "gpt-4o-mini", ' +
        '"api_keys": ["sk-…"]}, and set agents.defaults.model to its model_name.',
    );
  }
  if (model !== undefined) {
    if (!loaded.config.model_list.some((m) => m.model_name === model)) {
      const known = loaded.config.model_list.map((m) => m.model_name).join(', ') || 'none';
      throw new CliError(
        'unknown_model',
        `no model named "${model}"`,
        `model_list has: ${known}`,
        'Pick one of those with --model, or add it to model_list.',
      );
    }
    // `--model` is this run's model for every agent, whatever agents.list gives them.
    loaded.config.agents.defaults.model = model;
    for (const agent of loaded.config.agents.list) agent.model = model;
  }
  if (stream) for (const entry of loaded.config.model_list) entry.streaming.enabled = true;
  keepFrontmatterIn(join(loaded.home, 'cache'));
  try {
    const runtime = Runtime.start({ loaded, env, command });
    // Its turns ask a model: the HTTP client loads while plugins and MCP servers are prepared, so the first request
    // (and Ctrl-C while "waiting for" the model) finds it loaded.
    void undiciCore();
    return runtime;
  } catch (error) {
    if (error instanceof LogError && error.code === 'log_locked') {
      throw new CliError(
        'log_locked',
        'the event log is in use',
        error.message,
        'Stop `tern gateway` first, or talk to the agent through a channel.',
      );
    }
    throw error;
  }
}
