import { existsSync } from 'node:fs';
import express, { type Router } from 'express';
import * as z from 'zod';
import { validateConfig } from '../../../store/config/index.js';
import { readText, writeFileAtomic } from '../../../store/config/files.js';
import { sendError } from '../http-error.js';
import type { Json } from './config-secrets.js';
import type { DashboardHost } from './host.js';

const field = (name: string) =>
  z
    .string({ error: `${name} is required` })
    .trim()
    .min(1, { error: `${name} must not be empty` });

/** The first-run form: one model, its family (provider), base URL and key. */
export const firstModelSchema = z.object({
  model_name: field('model_name').regex(/^[A-Za-z0-9_.-]+$/, { error: 'model_name may hold letters, digits, _ . -' }),
  provider: field('provider'),
  model: field('model'),
  api_base: field('api_base').url({ error: 'api_base must be a URL such as https://api.openai.com/v1' }),
  api_key: field('api_key'),
});

type Raw = { [key: string]: Json };

function currentRaw(path: string): Raw {
  if (!existsSync(path)) return {};
  try {
    const parsed = JSON.parse(readText(path)) as Json;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** Adds the model to `model_list` (replacing one of the same name) and makes it the default when none is set. */
function withModel(raw: Raw, model: z.infer<typeof firstModelSchema>): Raw {
  const entry: Json = {
    model_name: model.model_name,
    provider: model.provider,
    model: model.model,
    api_base: model.api_base,
    api_keys: [model.api_key],
  };
  const list = Array.isArray(raw.model_list) ? raw.model_list : [];
  const others = list.filter(
    (e) => !(e && typeof e === 'object' && !Array.isArray(e) && e.model_name === model.model_name),
  );
  const agents = raw.agents && typeof raw.agents === 'object' && !Array.isArray(raw.agents) ? raw.agents : {};
  const defaults =
    agents.defaults && typeof agents.defaults === 'object' && !Array.isArray(agents.defaults) ? agents.defaults : {};
  return {
    version: 2,
    ...raw,
    agents: {
      ...agents,
      defaults: { ...defaults, model: typeof defaults.model === 'string' ? defaults.model : model.model_name },
    },
    model_list: [entry, ...others],
  };
}

/** `POST /onboarding/model`: saves the first model through validation, restarts the gateway and tests it. */
export function onboardingRoutes(host: DashboardHost): Router {
  const router = express.Router();
  router.post('/onboarding/model', express.json({ limit: '16kb' }), async (req, res) => {
    const parsed = firstModelSchema.safeParse(req.body ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return sendError(res, 400, 'invalid_body', issue?.message ?? 'the form is not valid');
    }
    const next = withModel(currentRaw(host.configPath()), parsed.data);
    const validation = validateConfig(next);
    if (!validation.ok) {
      res.status(400).json({
        error: { code: 'config_invalid', message: 'the model settings have problems; nothing was saved' },
        issues: validation.problems,
      });
      return;
    }
    writeFileAtomic(host.configPath(), `${JSON.stringify(next, null, 2)}\n`);
    res.json({ saved: true, test: await host.testModel(parsed.data.model_name) });
  });
  return router;
}
