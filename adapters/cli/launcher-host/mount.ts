import { join } from 'node:path';
import express from 'express';
import { ActorBoard } from '../../launcher/api/actor-board.js';
import type { DashboardHost } from '../../launcher/api/host.js';
import { dashboardRouter } from '../../launcher/api/router.js';
import { LiveFeed } from '../../launcher/live.js';
import type { RunningLauncher } from '../../launcher/server.js';
import { defaultWebDir } from '../../launcher/web-dir.js';

export const LIVE_PATH = '/api/live';
export const CHAT_PATH = '/pico/ws';

/** Mounts the dashboard on a running launcher: the JSON API, its bundle, `/api/live` and `/pico/ws`. */
export function mountDashboard(
  launcher: RunningLauncher,
  host: DashboardHost,
  webDir = defaultWebDir(),
): { close(): void } {
  const board = new ActorBoard();
  board.follow(host.board$);
  launcher.mountProtected('/api', dashboardRouter(host, board));
  launcher.mountProtected(
    '/dist',
    express.static(join(webDir, 'dist'), { index: false, dotfiles: 'ignore', redirect: false }),
  );
  const live = new LiveFeed(host.shown$, host.status$);
  launcher.server.on('upgrade', async (req, socket, head) => {
    const path = new URL(req.url ?? '/', 'http://launcher').pathname;
    const target = path === LIVE_PATH ? live : path === CHAT_PATH ? host.chatEndpoint : undefined;
    if (!target || !(await launcher.authenticateUpgrade(req))) {
      socket.end(
        `HTTP/1.1 ${target ? '401 Unauthorized' : '404 Not Found'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
      );
      return;
    }
    target.accept(req, socket, head);
  });
  return {
    close() {
      live.close();
      board.close();
    },
  };
}
