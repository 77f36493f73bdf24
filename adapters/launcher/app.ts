import { type IncomingMessage, ServerResponse } from 'node:http';
import express, {
  type Express,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from 'express';
import { type AuthStorage, openAuthStore } from '../../store/auth-db.js';
import { authGate } from './auth-gate.js';
import { authRoutes, type AuthParts } from './auth-routes.js';
import { credentials as passwordCredentials } from './credentials.js';
import { errorHandler, notFound } from './error-handlers.js';
import { LoginLimits } from './login-limit.js';
import { migrateLegacyToken, type TokenMigration } from './migrate-token.js';
import { authPages, homePage } from './pages.js';
import { isSameOrigin, originGuard } from './same-origin.js';
import { securityHeaders } from './security-headers.js';
import { SetupToken } from './setup-token.js';
import { isAuthenticated, sessionMiddleware } from './session.js';
import { defaultWebDir } from './web-dir.js';

export type ProtectedRoute = { path: string; handler: RequestHandler };

export interface LauncherOptions {
  /** AGENT_HOME: holds `launcher-auth.db` and `launcher-config.json`. */
  home: string;
  /** Browser files (`auth/`, and the dashboard's `index.html` when installed); defaults to the repository's web/. */
  webDir?: string;
  /** Mounted behind the auth gate, e.g. `{ path: '/api', handler: dashboardRouter }`. */
  routes?: ProtectedRoute[];
  /** The first-run setup token (`AGENT_LAUNCHER_SETUP_TOKEN`); random when absent. */
  setupToken?: string;
}

export interface LauncherApp {
  app: Express;
  storage: AuthStorage;
  tokenMigration: TokenMigration;
  /** What `POST /api/auth/setup` needs as `setup_token` while no password is set. */
  setupToken: string;
  /** Mounts a handler behind the session gate; works before or after the server starts listening. */
  mountProtected(path: string, handler: RequestHandler): void;
  /** For WebSocket upgrades (`/pico/ws`, `/api/live`): a signed-in session cookie and a same-host Origin. */
  authenticateUpgrade(req: IncomingMessage): Promise<boolean>;
  initialized(): Promise<boolean>;
  close(): Promise<void>;
}

function runSession(session: RequestHandler, req: IncomingMessage): Promise<boolean> {
  // express-session needs a response to hook; an upgrade has none, so it gets one that is never sent.
  const request = req as Request;
  return new Promise((resolve) => {
    session(request, new ServerResponse(req) as Response, (error?: unknown) =>
      resolve(!error && isAuthenticated(request)),
    );
  });
}

function noStore(_req: Request, res: Response, next: NextFunction): void {
  res.set('Cache-Control', 'no-store');
  next();
}

/** Behind the gate: the placeholder `/api/me`, the home page, and whatever the caller mounts. */
function guardedRoutes(webDir: string, routes: ProtectedRoute[]): Router {
  const guarded = express.Router();
  guarded.get('/api/me', (_req, res) => {
    res.json({ authenticated: true });
  });
  guarded.use(homePage(webDir));
  for (const route of routes) guarded.use(route.path, route.handler);
  return guarded;
}

type Parts = AuthParts & { session: RequestHandler; webDir: string; guarded: Router };

// Order matters: headers on every answer, then the session, then the gate before any route.
function assemble({ session, webDir, guarded, ...auth }: Parts): Express {
  const { credentials } = auth;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use(securityHeaders);
  app.use('/api', noStore);
  app.use(originGuard);
  app.use(session);
  app.use(authGate(credentials));
  app.use('/api/auth', authRoutes(auth));
  app.use(authPages(webDir, credentials));
  app.use(guarded);
  app.use(notFound);
  app.use(errorHandler);
  return app;
}

export async function createLauncherApp(options: LauncherOptions): Promise<LauncherApp> {
  const webDir = options.webDir ?? defaultWebDir();
  const setupToken = new SetupToken(options.setupToken);
  const store = await openAuthStore(options.home);
  try {
    const tokenMigration = await migrateLegacyToken(store);
    const credentials = passwordCredentials(store);
    const session = sessionMiddleware(store.sessions, store.sessionSecret);
    const guarded = guardedRoutes(webDir, options.routes ?? []);
    const limits = new LoginLimits(options.home);
    return {
      app: assemble({ session, credentials, storage: store.storage, setupToken, limits, webDir, guarded }),
      storage: store.storage,
      tokenMigration,
      setupToken: setupToken.value,
      mountProtected: (path, handler) => void guarded.use(path, handler),
      authenticateUpgrade: async (req) =>
        isSameOrigin(req) && (await credentials.initialized()) && runSession(session, req),
      initialized: () => credentials.initialized(),
      close: () => store.close(),
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
