import type { ProtocolFamily } from './provider.js';

export interface CatalogueEntry {
  family: ProtocolFamily;
  /** Empty when the user must give `api_base` (the address depends on their account or server). */
  apiBase: string;
  needsKey: boolean;
  /** The header that carries the key when the family's usual one does not apply. */
  keyHeader?: string;
}

const hosted = (apiBase: string): CatalogueEntry => ({ family: 'chat-completions', apiBase, needsKey: true });
const local = (apiBase: string): CatalogueEntry => ({ family: 'chat-completions', apiBase, needsKey: false });

/** Every provider identifier a model entry may name, with its family and default base address. */
export const providerCatalogue: Record<string, CatalogueEntry> = {
  openai: hosted('https://api.openai.com/v1'),
  anthropic: { family: 'messages', apiBase: 'https://api.anthropic.com/v1', needsKey: true },
  gemini: { family: 'generate-content', apiBase: 'https://generativelanguage.googleapis.com/v1beta', needsKey: true },
  google: { family: 'generate-content', apiBase: 'https://generativelanguage.googleapis.com/v1beta', needsKey: true },
  openrouter: hosted('https://openrouter.ai/api/v1'),
  groq: hosted('https://api.groq.com/openai/v1'),
  deepseek: hosted('https://api.deepseek.com/v1'),
  mistral: hosted('https://api.mistral.ai/v1'),
  xai: hosted('https://api.x.ai/v1'),
  cerebras: hosted('https://api.cerebras.ai/v1'),
  together: hosted('https://api.together.xyz/v1'),
  fireworks: hosted('https://api.fireworks.ai/inference/v1'),
  nvidia: hosted('https://integrate.api.nvidia.com/v1'),
  zhipu: hosted('https://open.bigmodel.cn/api/paas/v4'),
  moonshot: hosted('https://api.moonshot.ai/v1'),
  qwen: hosted('https://dashscope-intl.aliyuncs.com/compatible-mode/v1'),
  siliconflow: hosted('https://api.siliconflow.cn/v1'),
  volcengine: hosted('https://ark.cn-beijing.volces.com/api/v3'),
  minimax: hosted('https://api.minimax.io/v1'),
  /** The peer runtime's name for the messages API spoken natively. */
  'anthropic-messages': { family: 'messages', apiBase: 'https://api.anthropic.com/v1', needsKey: true },
  venice: hosted('https://api.venice.ai/api/v1'),
  longcat: hosted('https://api.longcat.chat/openai'),
  modelscope: hosted('https://api-inference.modelscope.cn/v1'),
  azure: { family: 'chat-completions', apiBase: '', needsKey: true, keyHeader: 'api-key' },
  litellm: local('http://localhost:4000/v1'),
  ollama: local('http://localhost:11434/v1'),
  vllm: local('http://localhost:8000/v1'),
  lmstudio: local('http://localhost:1234/v1'),
  custom: local(''),
  /** Google Cloud Code Assist, signed in with `tern auth login --provider antigravity` (OAuth only, no key). */
  antigravity: { family: 'cloud-code', apiBase: 'https://cloudcode-pa.googleapis.com', needsKey: false },
  'google-antigravity': { family: 'cloud-code', apiBase: 'https://cloudcode-pa.googleapis.com', needsKey: false },
  /** The Copilot CLI's headless server (`copilot --headless --port 4321`), which holds the GitHub sign-in. */
  'github-copilot': { family: 'copilot', apiBase: 'http://localhost:4321', needsKey: false },
};

export const knownProviders: readonly string[] = Object.keys(providerCatalogue);
