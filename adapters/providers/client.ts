import { createChatCompletionsClient } from './chat-completions.js';
import { createCloudCodeClient } from './cloud-code.js';
import { createCopilotClient } from './copilot.js';
import { createGenerateContentClient } from './generate-content.js';
import { createMessagesClient } from './messages.js';
import { withSearchFallback } from './native-search.js';
import type { EndpointConfig, ProviderClient } from './provider.js';

/** The client for one endpoint and one key, by protocol family. */
export function createProviderClient(endpoint: EndpointConfig): ProviderClient {
  return withSearchFallback(familyClient(endpoint), endpoint.nativeSearch);
}

function familyClient(endpoint: EndpointConfig): ProviderClient {
  switch (endpoint.family) {
    case 'chat-completions':
      return createChatCompletionsClient(endpoint);
    case 'messages':
      return createMessagesClient(endpoint);
    case 'generate-content':
      return createGenerateContentClient(endpoint);
    case 'cloud-code':
      return createCloudCodeClient(endpoint);
    case 'copilot':
      return createCopilotClient(endpoint);
  }
}
