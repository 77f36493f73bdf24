import { embedTexts } from '../../adapters/providers/embeddings.js';
import type { Config } from '../../store/config/index.js';
import type { Embedder } from '../../store/memory/embedding-cache.js';
import { modelEntries } from './models.js';

/** Recall's embedder: the `model_list` entry `agents.defaults.memory.embedding_model` names, or none when unset. */
export function embedderOf(config: Config): Embedder | undefined {
  const name = config.agents.defaults.memory.embedding_model;
  const entry = name === undefined ? undefined : modelEntries(config).find((e) => e.model_name === name);
  if (!entry) return undefined;
  return { model: `${entry.provider ?? ''}/${entry.model}`, embed: (texts) => embedTexts(entry, texts) };
}
