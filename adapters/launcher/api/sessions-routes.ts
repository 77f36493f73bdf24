import express, { type Router } from 'express';
import * as z from 'zod';
import { sendError } from '../http-error.js';
import { chatOf } from '../../channels/pico/endpoint.js';
import type { Conversation } from '../../../bus/api-shapes.js';
import type { DashboardHost } from './host.js';
import { logOrAnswer } from './log-access.js';
import { parseQuery } from './query.js';
import { savedPrices } from './saved-config.js';
import type { SessionIndex } from './session-index.js';
import { transcriptOf, turnsOf } from './transcript.js';

/** The web chat's own session id, as the Chat page keeps it (`/pico/ws` frames' `session_id`). */
const chatQuerySchema = z
  .object({
    session_id: z
      .string({ error: 'session_id is required' })
      .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'session_id must be 1–64 letters, digits, _ or -' }),
  })
  .strict();

/** The channel kind of the web-UI chat, as `turn.started` names it. */
const WEB_CHAT = 'pico';
/** `chatOf(session_id)`'s prefix: the web chat's own id follows it. */
const DIRECT = chatOf('');

/**
 * `/sessions` (every session with readable parts, counts, tokens and cost), `/sessions/:id` (its conversation as
 * the model sees it, each turn's steps, and its turns with their tokens and cost), `POST /sessions/:id/clear`, and
 * `/chat/history` (the web chat's conversation, found by its own session id), and `/chat/conversations` (the web
 * chat's conversations, latest first, so any browser opens the latest one).
 */
export function sessionsRoutes(host: DashboardHost, index: SessionIndex): Router {
  const router = express.Router();
  router.get('/sessions', async (_req, res) => {
    const log = await logOrAnswer(host, res);
    if (!log) return;
    res.json({ sessions: index.list(log, savedPrices(host.configPath())) });
  });
  router.get('/sessions/:id', async (req, res) => {
    const log = await logOrAnswer(host, res);
    if (!log) return;
    const priceOf = savedPrices(host.configPath());
    const row = index.get(log, req.params.id, priceOf);
    if (!row) return sendError(res, 404, 'session_not_found', `no session ${req.params.id} in the event log`);
    res.json({ ...transcriptOf(log, row.session), about: row, turns: turnsOf(log, row.session, priceOf) });
  });
  router.post('/sessions/:id/clear', async (req, res) => {
    const log = await logOrAnswer(host, res);
    if (!log) return;
    const started = log.read({ session: req.params.id, type: 'turn.started', limit: 1 })[0];
    if (started?.type !== 'turn.started')
      return sendError(res, 404, 'session_not_found', `no session ${req.params.id} in the event log`);
    if (!(await host.clearSession(started)))
      return sendError(res, 503, 'gateway_stopped', 'the gateway is stopped; start it to clear a session');
    res.json({ session: req.params.id, cleared: true });
  });
  router.get('/chat/history', async (req, res) => {
    const query = parseQuery(chatQuerySchema, req);
    const log = await logOrAnswer(host, res);
    if (!log) return;
    const chat = chatOf(query.session_id);
    const session = index.sessionOfChat(log, WEB_CHAT, chat);
    if (!session) return res.json({ session: null, summary: null, messages: [], steps: {} });
    res.json(transcriptOf(log, session));
  });
  router.get('/chat/conversations', async (_req, res) => {
    const log = await logOrAnswer(host, res);
    if (!log) return;
    const conversations: Conversation[] = index
      .list(log, savedPrices(host.configPath()))
      .filter((row) => row.channel === WEB_CHAT && row.chat.startsWith(DIRECT))
      .map((row) => ({
        session_id: row.chat.slice(DIRECT.length),
        session: row.session,
        turns: row.turns,
        last_at: row.last_at,
        last_text: row.last_text,
      }));
    res.json({ conversations });
  });
  return router;
}
