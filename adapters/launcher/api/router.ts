import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { sendError } from '../http-error.js';
import type { ActorBoard } from './actor-board.js';
import { actorsRoutes } from './actors-routes.js';
import { channelQrRoutes } from './channel-qr-routes.js';
import { configRoutes } from './config-routes.js';
import { cronRoutes } from './cron-routes.js';
import { eventsRoutes } from './events-routes.js';
import { gatewayRoutes } from './gateway-routes.js';
import type { DashboardHost } from './host.js';
import { memoryRoutes } from './memory-routes.js';
import { onboardingRoutes } from './onboarding-routes.js';
import { pairingRoutes } from './pairing-routes.js';
import { QueryError } from './query.js';
import { SessionIndex } from './session-index.js';
import { sessionsRoutes } from './sessions-routes.js';
import { skillsRoutes } from './skills-routes.js';
import { statusRoutes } from './status-routes.js';
import { turnsRoutes } from './turns-routes.js';
import { usageRoutes } from './usage-routes.js';

function queryErrors(error: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (error instanceof QueryError) return sendError(res, 400, error.code, error.message);
  next(error);
}

/** The dashboard's JSON API, to mount at `/api` behind the session gate. */
export function dashboardRouter(host: DashboardHost, board: ActorBoard): Router {
  const router = express.Router();
  const sessions = new SessionIndex();
  router.use(configRoutes(host));
  router.use(channelQrRoutes(host));
  router.use(eventsRoutes(host));
  router.use(turnsRoutes(host));
  router.use(sessionsRoutes(host, sessions));
  router.use(actorsRoutes(host, board, sessions));
  router.use(gatewayRoutes(host));
  router.use(statusRoutes(host));
  router.use(cronRoutes(host));
  router.use(skillsRoutes(host));
  router.use(onboardingRoutes(host));
  router.use(pairingRoutes(host));
  router.use(usageRoutes(host));
  router.use(memoryRoutes(host));
  router.use(queryErrors);
  return router;
}
