import express, { type Router } from 'express';
import type { Envelope } from '../../../bus/index.js';
import { emptyHistory, foldHistory, HISTORY_TYPES } from '../../../store/log/history.js';
import { sendError } from '../http-error.js';
import type { DashboardHost } from './host.js';
import { logOrAnswer } from './log-access.js';

export type SessionSummary = { session: string; session_key: string; channel: string; turns: number; last_at: number; last_text: string };

function summarize(started: Envelope<'turn.started'>[]): SessionSummary[] {
  const sessions = new Map<string, SessionSummary>();
  for (const event of started) {
    if (!event.session) continue;
    const known = sessions.get(event.session);
    sessions.set(event.session, {
      session: event.session,
      session_key: event.data.session_key,
      channel: event.data.channel,
      turns: (known?.turns ?? 0) + 1,
      last_at: event.at,
      last_text: event.data.text,
    });
  }
  return [...sessions.values()].sort((a, b) => b.last_at - a.last_at);
}

/** `/sessions` (list), `/sessions/:id` (history) and `POST /sessions/:id/clear`. */
export function sessionsRoutes(host: DashboardHost): Router {
  const router = express.Router();
  router.get('/sessions', async (_req, res) => {
    const log = await logOrAnswer(host, res);
    if (!log) return;
    const started = log.read({ type: 'turn.started' }).filter((e): e is Envelope<'turn.started'> => e.type === 'turn.started');
    res.json({ sessions: summarize(started) });
  });
  router.get('/sessions/:id', async (req, res) => {
    const log = await logOrAnswer(host, res);
    if (!log) return;
    const events = log.read({ session: req.params.id, type: HISTORY_TYPES });
    if (events.length === 0) return sendError(res, 404, 'session_not_found', `no session ${req.params.id} in the event log`);
    const history = events.reduce(foldHistory, emptyHistory());
    res.json({ session: req.params.id, summary: history.summary ?? null, messages: history.messages });
  });
  router.post('/sessions/:id/clear', async (req, res) => {
    const log = await logOrAnswer(host, res);
    if (!log) return;
    const started = log.read({ session: req.params.id, type: 'turn.started', limit: 1 })[0];
    if (started?.type !== 'turn.started') return sendError(res, 404, 'session_not_found', `no session ${req.params.id} in the event log`);
    if (!(await host.clearSession(started))) return sendError(res, 503, 'gateway_stopped', 'the gateway is stopped; start it to clear a session');
    res.json({ session: req.params.id, cleared: true });
  });
  return router;
}
