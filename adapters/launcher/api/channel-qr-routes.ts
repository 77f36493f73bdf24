import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import express, { type Router } from 'express';
import { sendError } from '../http-error.js';
import type { DashboardHost } from './host.js';
import { savedConfig } from './saved-config.js';

/**
 * `GET /channels/:name/qr`: the code a WhatsApp channel that links this machine wrote to its session folder
 * (`qr.json`, replaced by each new code) until it is scanned; 404 while there is none.
 */
export function channelQrRoutes(host: DashboardHost): Router {
  const router = express.Router();
  router.get('/channels/:name/qr', (req, res) => {
    const name = req.params.name;
    const entry = savedConfig(host.configPath())?.channel_list[name];
    if (entry?.type !== 'whatsapp')
      return sendError(res, 404, 'channel_unknown', `no WhatsApp channel named "${name}" in the saved config`);
    // The gateway's home is the folder of its logs folder; the channel keeps its session under it by default.
    const home = dirname(dirname(host.logFile()));
    const setting = (entry.settings as Record<string, unknown>).session_store_path;
    const dir = typeof setting === 'string' && setting !== '' ? setting : join(home, 'whatsapp', name);
    const file = join(dir, 'qr.json');
    if (!existsSync(file))
      return sendError(res, 404, 'qr_none', 'no QR code yet: the channel is linked or not started');
    const { data_url, at } = JSON.parse(readFileSync(file, 'utf8')) as { data_url: string; at: string };
    res.json({ data_url, at });
  });
  return router;
}
