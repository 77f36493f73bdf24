export { knownProviders, providerCatalogue, type CatalogueEntry } from './catalogue.js';
export { createProviderClient } from './client.js';
export { ProviderConfigError, ProviderError } from './errors.js';
export { generateImage, type GeneratedImage } from './image-generation.js';
export { maskKey } from './mask-key.js';
export { modelEntrySchema, type ModelEntry } from './model-entry.js';
export type {
  CallOptions,
  ChatRequest,
  EndpointConfig,
  ProtocolFamily,
  ProviderClient,
  StreamChunk,
  ToolSpec,
} from './provider.js';
export { resolveModelEntry, type ResolvedEntry } from './resolve.js';
export {
  createModelRouter,
  type ModelDescription,
  type ModelRouter,
  type ModelRouterOptions,
  type RouterCallOptions,
  type RouterRequest,
} from './router.js';
export { transcribe } from './transcription.js';
