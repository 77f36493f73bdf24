import * as z from 'zod';
import { bearerHeaders } from './bearer.js';
import { ProviderConfigError } from './errors.js';
import { postJson } from './http.js';
import { taggedMedia } from './media-endpoint.js';
import type { ModelEntry } from './model-entry.js';
import { resolveModelEntry, type ResolvedEntry } from './resolve.js';
import { parseWire } from './wire.js';

const vector = z.array(z.number());
const chatCompletionsSchema = z.looseObject({ data: z.array(z.looseObject({ index: z.number(), embedding: vector })) });
const ollamaSchema = z.looseObject({ embeddings: z.array(vector) });
const batchSchema = z.looseObject({ embeddings: z.array(z.looseObject({ values: vector })) });
const singleSchema = z.looseObject({ embedding: z.looseObject({ values: vector }) });

/** ollama's own API sits beside its chat-completions one (`…/v1`): `/api/embed` takes a batch. */
const ollamaRoot = (apiBase: string): string => apiBase.replace(/\/v1\/?$/, '');

async function call(entry: ResolvedEntry, url: string, headers: Record<string, string>, body: unknown) {
  return taggedMedia(
    entry,
    postJson({ url, headers, body, route: entry.route, firstByteTimeoutMs: entry.firstByteTimeoutMs }),
  );
}

/**
 * Embeds `texts` with a model entry, one vector per text in order: the chat-completions family's `/embeddings`,
 * ollama's `/api/embed`, the generate-content family's `embedContent` (one text) or `batchEmbedContents`.
 */
export async function embedTexts(input: ModelEntry, texts: string[]): Promise<number[][]> {
  const entry = resolveModelEntry(input);
  const key = entry.keys[0];
  if (entry.family === 'generate-content') {
    const headers = { ...(key === undefined ? {} : { [entry.keyHeader ?? 'x-goog-api-key']: key }), ...entry.headers };
    const base = `${entry.apiBase}/models/${entry.model}`;
    const content = (text: string) => ({ parts: [{ text }] });
    if (texts.length === 1) {
      const answer = await call(entry, `${base}:embedContent`, headers, { content: content(texts[0]!) });
      return [parseWire(singleSchema, answer, 'embedContent').embedding.values];
    }
    const requests = texts.map((text) => ({ model: `models/${entry.model}`, content: content(text) }));
    const answer = await call(entry, `${base}:batchEmbedContents`, headers, { requests });
    return parseWire(batchSchema, answer, 'batchEmbedContents').embeddings.map((e) => e.values);
  }
  if (entry.family !== 'chat-completions') {
    throw new ProviderConfigError(
      entry.modelName,
      'provider',
      `model entry ${entry.modelName}: embeddings need a chat-completions, ollama or generate-content provider, ` +
        `and "${entry.provider}" speaks ${entry.family}`,
    );
  }
  const headers = { ...bearerHeaders({ apiKey: key, keyHeader: entry.keyHeader }), ...entry.headers };
  const body = { model: entry.model, input: texts };
  if (entry.provider === 'ollama') {
    const answer = await call(entry, `${ollamaRoot(entry.apiBase)}/api/embed`, headers, body);
    return parseWire(ollamaSchema, answer, 'ollama embed').embeddings;
  }
  const answer = await call(entry, `${entry.apiBase}/embeddings`, headers, body);
  const rows = parseWire(chatCompletionsSchema, answer, 'embeddings').data;
  return [...rows].sort((a, b) => a.index - b.index).map((row) => row.embedding);
}
