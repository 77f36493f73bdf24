// Embedding endpoints of the three families as a loopback vendor answers them, with vectors a test can reason about.
import { json, type RecordedRequest, type ScriptedReply } from './vendor-server.js';

/** Each dimension is a topic; a text's vector counts its topic words, plus a small constant so none is all zeros. */
const TOPICS: string[][] = [
  ['flat', 'apartment', 'house', 'live', 'lisbon', 'rua', 'home'],
  ['garage', 'car', 'park', 'parking', 'drive'],
  ['cook', 'rice', 'beans', 'stew', 'dinner', 'eat'],
];

export function topicVector(text: string): number[] {
  const words = text.toLowerCase().split(/[^a-z]+/);
  return [...TOPICS.map((topic) => words.filter((w) => topic.includes(w)).length), 0.1];
}

/**
 * Answers an embedding request in its family's wire format: chat-completions `/embeddings`, ollama `/api/embed`,
 * generate-content `:embedContent` and `:batchEmbedContents`.
 */
export function embeddingReply(request: RecordedRequest): ScriptedReply {
  const body = JSON.parse(request.body.toString('utf8')) as {
    input?: string[];
    content?: { parts: Array<{ text: string }> };
    requests?: Array<{ content: { parts: Array<{ text: string }> } }>;
  };
  if (request.url.endsWith(':embedContent'))
    return json({ embedding: { values: topicVector(body.content!.parts[0]!.text) } });
  if (request.url.endsWith(':batchEmbedContents'))
    return json({ embeddings: body.requests!.map((r) => ({ values: topicVector(r.content.parts[0]!.text) })) });
  const vectors = body.input!.map(topicVector);
  if (request.url.endsWith('/api/embed')) return json({ model: 'nomic-embed-text', embeddings: vectors });
  return json({
    object: 'list',
    data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
    model: 'text-embedding-3-small',
    usage: { prompt_tokens: 8, total_tokens: 8 },
  });
}
