import { bearerHeaders } from './bearer.js';
import { ProviderConfigError, ProviderError } from './errors.js';
import type { ModelEntry } from './model-entry.js';
import { resolveModelEntry, type ResolvedEntry } from './resolve.js';

/** Media endpoints exist on the chat-completions family only; they use the entry's first key. */
export function mediaEndpoint(
  input: ModelEntry,
  what: string,
): { entry: ResolvedEntry; headers: Record<string, string> } {
  const entry = resolveModelEntry(input);
  if (entry.family !== 'chat-completions') {
    throw new ProviderConfigError(
      entry.modelName,
      'provider',
      `model entry ${entry.modelName}: ${what} needs a chat-completions provider, ` +
        `and "${entry.provider}" speaks ${entry.family}`,
    );
  }
  const key = entry.keys[0];
  if (entry.needsKey && key === undefined) {
    throw new ProviderError({
      code: 'auth',
      modelName: entry.modelName,
      message: `model entry ${entry.modelName} has no api key for ${what}`,
    });
  }
  return { entry, headers: { ...bearerHeaders({ apiKey: key, keyHeader: entry.keyHeader }), ...entry.headers } };
}

export function formValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Media failures name the model entry like chat failures do. */
export async function taggedMedia<T>(entry: ResolvedEntry, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ProviderError)
      throw error.from(entry.modelName, 0, `model entry ${entry.modelName}: ${error.message}`);
    throw error;
  }
}
