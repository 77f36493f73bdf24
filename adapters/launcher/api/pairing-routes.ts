import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import express, { type Router } from 'express';
import { filter, firstValueFrom, timeout } from 'rxjs';
import type { PairingDecided, PairingReply } from '../../../bus/api-shapes.js';
import type { Envelope } from '../../../bus/index.js';
import { normalizeCode, PairingStore } from '../../../store/pairing.js';
import { sendError } from '../http-error.js';
import type { DashboardHost } from './host.js';

type Answer = Envelope<'pairing.decided'> | Envelope<'pairing.decision.failed'>;

const DECISIONS = ['approve', 'deny'] as const;
const ANSWER_MS = 10_000;

/** The pairing file of the gateway's home (the folder of its logs folder), as `tern pairing` reads it. */
function storeOf(host: DashboardHost): PairingStore {
  return new PairingStore(dirname(dirname(host.logFile())));
}

/**
 * `GET /pairing` (who waits with a code, who was let in) and `POST /pairing/:code/{approve,deny}`: the decision goes
 * to the running gateway's pairing desk on its bus, as `tern pairing approve` sends it over the control socket, so the
 * sender is told at once.
 */
export function pairingRoutes(host: DashboardHost): Router {
  const router = express.Router();
  router.get('/pairing', (_req, res) => {
    const store = storeOf(host);
    const reply: PairingReply = {
      requests: store.pending(Date.now()).map(({ code, channel, sender, aliases, chat, expires_at }) => ({
        code,
        channel,
        sender,
        aliases,
        chat,
        expires_at,
      })),
      approved: store
        .approved()
        .map(({ channel, sender, aliases, approved_at, by }) => ({ channel, sender, aliases, approved_at, by })),
    };
    res.json(reply);
  });
  router.post('/pairing/:code/:decision', async (req, res) => {
    const decision = DECISIONS.find((d) => d === req.params.decision);
    if (!decision)
      return sendError(res, 404, 'not_found', `no pairing action ${req.params.decision} (allowed: approve, deny)`);
    const code = normalizeCode(req.params.code);
    const request = `p_${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
    const answered = firstValueFrom(
      host.events$.pipe(
        filter(
          (e): e is Answer =>
            (e.type === 'pairing.decided' || e.type === 'pairing.decision.failed') && e.data.request === request,
        ),
        timeout(ANSWER_MS),
      ),
    );
    if (!host.publish({ type: 'pairing.decision.requested', data: { request, code, decision, by: 'dashboard' } }))
      return sendError(res, 409, 'gateway_stopped', 'start the gateway to decide on a pairing request');
    try {
      const answer = await answered;
      if (answer.type === 'pairing.decision.failed') {
        const expired = answer.data.reason === 'expired';
        return sendError(
          res,
          expired ? 410 : 404,
          expired ? 'pairing_expired' : 'pairing_unknown',
          expired ? `pairing code ${code} has expired` : `no pairing request has the code ${code}`,
        );
      }
      const reply: PairingDecided = { code, decision, channel: answer.data.channel, sender: answer.data.sender };
      res.json(reply);
    } catch {
      sendError(res, 504, 'pairing_unanswered', 'the gateway did not answer the decision in time');
    }
  });
  return router;
}
