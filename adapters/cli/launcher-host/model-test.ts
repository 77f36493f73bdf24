import type { ModelRouter } from '../../providers/router.js';
import type { ModelTest } from '../../launcher/api/host.js';

const QUESTION = 'Reply with the single word OK.';

/**
 * One short, non-streamed request to the model: proves the base URL, the key and the model id work. Used by the
 * dashboard's onboarding, `tern onboard` and `tern doctor`.
 */
export async function askModel(router: ModelRouter, modelName: string): Promise<ModelTest> {
  try {
    const answer = await router.chat(modelName, {
      messages: [{ role: 'user', content: QUESTION }],
      tools: [],
      stream: false,
      maxTokens: 16,
    });
    return { ok: true, reply: answer.text };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { ok: false, code: typeof code === 'string' ? code : 'model_failed', message: (error as Error).message };
  }
}
