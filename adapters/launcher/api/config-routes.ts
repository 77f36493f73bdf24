import { existsSync } from 'node:fs';
import express, { type Router } from 'express';
import type { ConfigCheck, ConfigReply, ConfigSaved } from '../../../bus/api-shapes.js';
import { validateConfig } from '../../../store/config/index.js';
import { backupFile, readText, writeFileAtomic } from '../../../store/config/files.js';
import { sendError } from '../http-error.js';
import { configJsonSchema } from './config-schema.js';
import { maskRaw, restoreMasked, secretNames, secretPaths, type Json } from './config-secrets.js';
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

let names: Set<string> | undefined;

function pathsOf(raw: Json) {
  const validation = validateConfig(raw);
  const { schema, channel_kinds } = configJsonSchema();
  names ??= secretNames([schema, ...Object.values(channel_kinds)]);
  return secretPaths(raw, validation.ok ? validation.config : undefined, names);
}

/**
 * The browser's config with each mask it kept turned back into the saved secret, checked as `tern config validate`
 * checks a file (the same problems, worded the same): `config` is what would be written.
 */
function checked(incoming: Json, current: Json): ConfigCheck & { config: Json } {
  const { config, unknown } = restoreMasked(incoming, current, pathsOf(current));
  const retype = unknown.map(({ path }) => `${path.join('.')}: is masked and matches no saved secret (type it again)`);
  const validation = validateConfig(config);
  return validation.ok
    ? { ok: retype.length === 0, problems: retype, warnings: validation.warnings, config }
    : { ok: false, problems: [...validation.problems, ...retype], warnings: [], config };
}

function bodyConfig(body: unknown): Json | undefined {
  return body && typeof body === 'object' && 'config' in body ? (body.config as Json) : undefined;
}

/**
 * `GET /config` (the file, secrets masked), `GET /config/schema` (what the form is drawn from), `POST /config/check`
 * (problems while the user types) and `PUT /config`: validated, masked secrets kept, the old file backed up and the
 * new one written atomically, as the CLI writes a config; the running gateway sees the change and reloads.
 */
export function configRoutes(host: DashboardHost): Router {
  const router = express.Router();
  router.get('/config', (_req, res) => {
    const file = readFile(host.configPath());
    if (file.kind === 'unreadable') return sendError(res, 409, 'config_unreadable', file.message);
    const reply: ConfigReply = {
      path: host.configPath(),
      exists: existsSync(host.configPath()),
      config: maskRaw(file.raw, pathsOf(file.raw)),
    };
    res.json(reply);
  });
  router.get('/config/schema', (_req, res) => {
    res.json(configJsonSchema());
  });
  router.post('/config/check', express.json({ limit: '1mb' }), (req, res) => {
    const incoming = bodyConfig(req.body);
    if (incoming === undefined) return sendError(res, 400, 'invalid_body', 'send {"config": {...}} as JSON');
    const file = readFile(host.configPath());
    const { config: _, ...reply } = checked(incoming, file.kind === 'ok' ? file.raw : {});
    res.json(reply satisfies ConfigCheck);
  });
  router.put('/config', express.json({ limit: '1mb' }), (req, res) => {
    const incoming = bodyConfig(req.body);
    if (incoming === undefined) return sendError(res, 400, 'invalid_body', 'send {"config": {...}} as JSON');
    const file = readFile(host.configPath());
    const result = checked(incoming, file.kind === 'ok' ? file.raw : {});
    if (!result.ok) {
      res.status(400).json({
        error: { code: 'config_invalid', message: 'the config has problems; nothing was saved' },
        issues: result.problems,
      });
      return;
    }
    const backup = backupFile(host.configPath(), new Date());
    writeFileAtomic(host.configPath(), `${JSON.stringify(result.config, null, 2)}\n`);
    const saved: ConfigSaved = {
      saved: true,
      ...(backup ? { backup } : {}),
      warnings: result.warnings,
      config: maskRaw(result.config, pathsOf(result.config)),
    };
    res.json(saved);
  });
  return router;
}
