import type { EndpointConfig } from './provider.js';

/** How the chat-completions family (and its media endpoints) carries the key. */
export function bearerHeaders(endpoint: Pick<EndpointConfig, 'apiKey' | 'keyHeader'>): Record<string, string> {
  if (endpoint.apiKey === undefined) return {};
  return endpoint.keyHeader
    ? { [endpoint.keyHeader]: endpoint.apiKey }
    : { authorization: `Bearer ${endpoint.apiKey}` };
}
