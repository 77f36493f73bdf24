import express, { type Response, type Router } from 'express';
import { CronStoreError, listCronJobs, putCronJob, removeCronJob } from '../../../store/cron-db.js';
import {
  CRON_FIELDS,
  CronFieldsError,
  cronJobFromFields,
  type CronFields,
} from '../../../store/cron/job-from-fields.js';
import { sendError } from '../http-error.js';
import type { DashboardHost } from './host.js';
import { savedConfig } from './saved-config.js';

/** The string fields of the body that name a `tern cron add` flag; anything else is a usage error. */
function fieldsOf(body: unknown): CronFields | string {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'send the job as a JSON object';
  const fields: CronFields = {};
  for (const [key, value] of Object.entries(body)) {
    const field = CRON_FIELDS.find((name) => name === key);
    if (!field) return `unknown field "${key}" (allowed: ${CRON_FIELDS.join(', ')})`;
    if (typeof value !== 'string') return `${key} must be a string`;
    if (value.trim() !== '') fields[field] = value;
  }
  return fields;
}

function storeFailed(res: Response, error: unknown): void {
  if (!(error instanceof CronStoreError)) throw error;
  sendError(res, 503, error.code, `the cron database cannot be used (${error.message})`);
}

/**
 * `POST /cron` adds a job and `DELETE /cron/:id` removes one, in the workspace database `tern cron add|remove` uses,
 * checked and worded as the CLI checks its flags (the body's fields are the flags' names). A running gateway's
 * scheduler reads that database, as it does after `tern cron add`.
 */
export function cronRoutes(host: DashboardHost): Router {
  const router = express.Router();
  router.post('/cron', express.json({ limit: '64kb' }), async (req, res) => {
    const workspace = host.cronWorkspace();
    if (!workspace) return sendError(res, 409, 'config_invalid', 'the saved config does not load; fix it first');
    const fields = fieldsOf(req.body);
    if (typeof fields === 'string') return sendError(res, 400, 'usage', fields);
    const config = savedConfig(host.configPath());
    try {
      const job = cronJobFromFields(fields, {
        commandsAllowed: config?.tools.exec.enabled ?? false,
        createdBy: { channel: 'dashboard' },
        now: new Date(),
      });
      res.status(201).json({ job: await putCronJob(workspace, job) });
    } catch (error) {
      if (error instanceof CronFieldsError)
        return sendError(res, 400, error.code, error.code === 'usage' ? error.why : error.message);
      storeFailed(res, error);
    }
  });
  router.delete('/cron/:id', async (req, res) => {
    const workspace = host.cronWorkspace();
    if (!workspace) return sendError(res, 409, 'config_invalid', 'the saved config does not load; fix it first');
    try {
      const removed = await removeCronJob(workspace, req.params.id);
      if (removed) return res.json({ removed });
      const ids = (await listCronJobs(workspace, { onSkipped: () => {} })).map((job) => job.id);
      sendError(
        res,
        404,
        'cron_job_unknown',
        `no cron job with id "${req.params.id}" (ids: ${ids.join(', ') || 'none'})`,
      );
    } catch (error) {
      storeFailed(res, error);
    }
  });
  return router;
}
