import { existsSync } from 'node:fs';
import express, { type Router } from 'express';
import { validateConfig } from '../../../store/config/index.js';
import { readText, writeFileAtomic } from '../../../store/config/files.js';
import { sendError } from '../http-error.js';
import { maskRaw, restoreMasked, secretPaths, type Json } from './config-secrets.js';
import type { DashboardHost } from './host.js';

type FileState = { kind: 'ok'; raw: Json } | { kind: 'unreadable'; message: string };

function readFile(path: string): FileState {
  if (!existsSync(path)) return { kind: 'ok', raw: {} };
  try {
    return { kind: 'ok', raw: JSON.parse(readText(path)) as Json };
  } catch (error) {
    return { kind: 'unreadable', message: `${path} is not valid JSON (${(error as Error).message})` };
  }
}

function pathsOf(raw: Json) {
  const validation = validateConfig(raw);
  return validation.ok ? secretPaths(validation.config) : [];
}

/** `GET /config` (the file, secrets masked) and `PUT /config` (validated, masked secrets kept). */
export function configRoutes(host: DashboardHost): Router {
  const router = express.Router();
  router.get('/config', (_req, res) => {
    const file = readFile(host.configPath());
    if (file.kind === 'unreadable') return sendError(res, 409, 'config_unreadable', file.message);
    res.json({
      path: host.configPath(),
      exists: existsSync(host.configPath()),
      config: maskRaw(file.raw, pathsOf(file.raw)),
    });
  });
  router.put('/config', express.json({ limit: '1mb' }), (req, res) => {
    const body = req.body as { config?: Json } | undefined;
    if (!body || typeof body !== 'object' || body.config === undefined)
      return sendError(res, 400, 'invalid_body', 'send {"config": {...}} as JSON');
    const file = readFile(host.configPath());
    const current = file.kind === 'ok' ? file.raw : {};
    const next = restoreMasked(body.config, current, pathsOf(current));
    const validation = validateConfig(next);
    if (!validation.ok) {
      res.status(400).json({
        error: { code: 'config_invalid', message: 'the config has problems; nothing was saved' },
        issues: validation.problems,
      });
      return;
    }
    writeFileAtomic(host.configPath(), `${JSON.stringify(next, null, 2)}\n`);
    res.json({ saved: true, warnings: validation.warnings, config: maskRaw(next, secretPaths(validation.config)) });
  });
  return router;
}
