import express, { type Router } from 'express';
import { sendError } from '../http-error.js';
import { GATEWAY_ACTIONS, type GatewayAction, type DashboardHost } from './host.js';

const isAction = (value: string): value is GatewayAction => (GATEWAY_ACTIONS as readonly string[]).includes(value);

/** `GET /gateway/status` and `POST /gateway/{start,stop,restart}`, answered by the supervisor over the bus. */
export function gatewayRoutes(host: DashboardHost): Router {
  const router = express.Router();
  router.get('/gateway/status', (_req, res) => {
    res.json(host.gatewayStatus());
  });
  router.post('/gateway/:action', async (req, res) => {
    const action = req.params.action;
    if (!isAction(action))
      return sendError(res, 404, 'not_found', `no gateway action ${action} (allowed: ${GATEWAY_ACTIONS.join(', ')})`);
    try {
      res.json(await host.requestGateway(action, 'dashboard'));
    } catch (error) {
      sendError(res, 500, 'gateway_failed', `the gateway could not ${action}: ${(error as Error).message}`);
    }
  });
  return router;
}
