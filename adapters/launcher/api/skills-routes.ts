import express, { type Response, type Router } from 'express';
import * as z from 'zod';
import { SkillInstallError } from '../../skills/registry.js';
import { SkillSearchError } from '../../skills/search.js';
import { sendError } from '../http-error.js';
import type { DashboardHost } from './host.js';
import { parseQuery, QueryError } from './query.js';

const searchQuerySchema = z
  .object({
    q: z
      .string({ error: 'q (the search words) is required' })
      .trim()
      .min(1, { error: 'q (the search words) must not be empty' }),
    limit: z
      .string()
      .regex(/^\d+$/, { error: 'limit must be a whole number' })
      .transform(Number)
      .pipe(
        z
          .number()
          .int()
          .min(1, { error: 'limit must be from 1 to 50' })
          .max(50, { error: 'limit must be from 1 to 50' }),
      )
      .optional(),
  })
  .strict();

const installSchema = z
  .object({
    ref: z.string().trim().min(1, { error: 'ref must name a skill: slug[@version] or owner/repo[/path][@ref]' }),
    version: z.string().trim().min(1).optional(),
    registry: z.string().trim().min(1).optional(),
    force: z.boolean().optional(),
    global: z.boolean().optional(),
  })
  .strict();

const removeSchema = z
  .object({ name: z.string().trim().min(1, { error: 'name must not be empty' }), global: z.boolean().optional() })
  .strict();

/** The status an install or removal error answers with: the user's mistake, a refusal, or a registry that failed. */
const STATUS: Record<SkillInstallError['code'], number> = {
  registry_unknown: 400,
  slug_invalid: 400,
  registry_failed: 502,
  malware_blocked: 422,
  suspicious: 422,
  archive_refused: 422,
  skill_invalid: 422,
  already_installed: 409,
  not_installed: 404,
};

function body<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success)
    throw new QueryError(parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; '));
  return parsed.data;
}

function failed(res: Response, error: unknown): void {
  if (error instanceof SkillInstallError) return sendError(res, STATUS[error.code], error.code, error.message);
  if (error instanceof SkillSearchError)
    return sendError(res, error.code === 'query_empty' ? 400 : 409, error.code, error.message);
  if (error instanceof QueryError) return sendError(res, 400, error.code, error.message);
  sendError(res, 500, 'skills_failed', (error as Error).message);
}

/**
 * `/skills` (installed, with provenance), `/skills/search`, `POST /skills/install`, `POST /skills/remove`,
 * `/skills/drafts` and `POST /skills/drafts/:id/{accept,reject}`.
 */
export function skillsRoutes(host: DashboardHost): Router {
  const router = express.Router();
  router.get('/skills', (_req, res) => {
    res.json({ skills: host.skills.installed() });
  });
  router.get('/skills/search', async (req, res) => {
    try {
      const query = parseQuery(searchQuerySchema, req);
      res.json(await host.skills.search(query.q, query.limit ?? 10));
    } catch (error) {
      failed(res, error);
    }
  });
  const json = express.json({ limit: '16kb' });
  router.post('/skills/install', json, async (req, res) => {
    try {
      res.json(await host.skills.install(body(installSchema, req.body)));
    } catch (error) {
      failed(res, error);
    }
  });
  router.post('/skills/remove', json, (req, res) => {
    try {
      const { name, global } = body(removeSchema, req.body);
      res.json(host.skills.remove(name, global === true));
    } catch (error) {
      failed(res, error);
    }
  });
  router.get('/skills/drafts', async (_req, res) => {
    res.json({ drafts: await host.skills.drafts() });
  });
  router.post('/skills/drafts/:id/:decision', async (req, res) => {
    const { id, decision } = req.params;
    if (decision !== 'accept' && decision !== 'reject')
      return sendError(res, 404, 'not_found', `no draft action ${decision} (allowed: accept, reject)`);
    const answer = await host.skills.decide(id, decision);
    if (answer.ok) return void res.json(answer);
    const status = answer.code === 'gateway_stopped' ? 409 : answer.code === 'draft_unknown' ? 404 : 422;
    sendError(res, status, answer.code, answer.message);
  });
  return router;
}
