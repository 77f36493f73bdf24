import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Router } from 'express';
import { LOGIN_PAGE, SETUP_PAGE } from './auth-gate.js';
import type { Credentials } from './credentials.js';
import { isAuthenticated } from './session.js';

const SIGNED_IN_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tern</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="/auth/auth.css">
<script src="/auth/auth.js" defer></script></head>
<body><main class="card"><h1>Tern</h1><p>You are signed in. The dashboard is not installed in this build.</p>
<button type="button" id="logout">Sign out</button></main></body></html>
`;

/** The two sign-in pages and their files under /auth/ (public), sent to the right one for the auth state. */
export function authPages(webDir: string, credentials: Credentials): Router {
  const router = express.Router();
  const authDir = join(webDir, 'auth');
  router.get(SETUP_PAGE, async (req, res) => {
    if (!isAuthenticated(req) && (await credentials.initialized())) return res.redirect(302, LOGIN_PAGE);
    res.sendFile(join(authDir, 'setup.html'));
  });
  router.get(LOGIN_PAGE, async (req, res) => {
    if (!(await credentials.initialized())) return res.redirect(302, SETUP_PAGE);
    if (isAuthenticated(req)) return res.redirect(302, '/');
    res.sendFile(join(authDir, 'login.html'));
  });
  router.use('/auth', express.static(authDir, { index: false, dotfiles: 'ignore', redirect: false }));
  return router;
}

/** `/` once signed in: the dashboard's index.html when it is installed, else a short signed-in page. */
export function homePage(webDir: string): Router {
  const router = express.Router();
  const index = join(webDir, 'index.html');
  router.get('/', (_req, res) => {
    if (existsSync(index)) return res.sendFile(index);
    res.type('html').send(SIGNED_IN_PAGE);
  });
  return router;
}
