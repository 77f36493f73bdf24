import { providerCatalogue } from '../providers/catalogue.js';

/** A model id to offer for a provider, where one is a safe first choice; others are asked without a default. */
const SUGGESTED_MODELS: Readonly<Record<string, string>> = {
  openai: 'gpt-4o-mini',
  anthropic: 'claude-sonnet-4-5',
  'anthropic-messages': 'claude-sonnet-4-5',
  gemini: 'gemini-2.5-flash',
  google: 'gemini-2.5-flash',
  openrouter: 'openai/gpt-4o-mini',
  groq: 'llama-3.3-70b-versatile',
  deepseek: 'deepseek-chat',
  mistral: 'mistral-small-latest',
  xai: 'grok-3-mini',
  ollama: 'llama3.2',
};

export interface ProviderChoice {
  name: string;
  needsKey: boolean;
  /** The default address; empty where the user must give one (azure, custom). */
  apiBase: string;
  /** Runs on this machine (or the user's network): its address is asked, not its key. */
  local: boolean;
  suggestedModel?: string;
}

/** The catalogue as `tern onboard` offers it: hosted providers first, then the local ones. */
export function providerChoices(): ProviderChoice[] {
  const all = Object.entries(providerCatalogue).map(
    ([name, entry]): ProviderChoice => ({
      name,
      needsKey: entry.needsKey,
      apiBase: entry.apiBase,
      local: !entry.needsKey,
      ...(SUGGESTED_MODELS[name] ? { suggestedModel: SUGGESTED_MODELS[name] } : {}),
    }),
  );
  return [...all.filter((p) => !p.local), ...all.filter((p) => p.local)];
}

/** A `model_name` made from a model id: its last path segment (`openai/gpt-4o-mini` → `gpt-4o-mini`). */
export function modelNameOf(model: string): string {
  return model.split('/').at(-1) || model;
}
