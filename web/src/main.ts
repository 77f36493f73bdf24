import { h, replace } from './dom.js';
import { chatPage } from './pages/chat.js';
import { configPage } from './pages/config.js';
import { eventsPage } from './pages/events.js';
import { machinesPage } from './pages/machines.js';
import type { Page } from './pages/page.js';
import { sessionsPage } from './pages/sessions.js';
import { skillsPage } from './pages/skills.js';
import { gatewayPage, inventoryPage, logsPage } from './pages/status.js';
import { turnPage } from './pages/turn.js';

const PAGES: Record<string, { title: string; page: Page; nav: boolean }> = {
  chat: { title: 'Chat', page: chatPage, nav: true },
  machines: { title: 'Machines', page: machinesPage, nav: true },
  events: { title: 'Event log', page: eventsPage, nav: true },
  turn: { title: 'Turn', page: turnPage, nav: false },
  sessions: { title: 'Sessions', page: sessionsPage, nav: true },
  config: { title: 'Config', page: configPage, nav: true },
  logs: { title: 'Logs', page: logsPage, nav: true },
  status: { title: 'Status', page: inventoryPage, nav: true },
  skills: { title: 'Skills', page: skillsPage, nav: true },
  gateway: { title: 'Gateway', page: gatewayPage, nav: true },
};

let stopPage: () => void = () => {};

/** `#/<page>/<param>`: one page at a time, each cleaning up after itself. */
function route(): void {
  const [, name = 'chat', param] = window.location.hash.split('/').map(decodeURIComponent);
  const entry = PAGES[name] ?? PAGES.chat;
  const root = document.getElementById('page');
  if (!entry || !root) return;
  stopPage();
  document.title = `Tern — ${entry.title}`;
  document.querySelectorAll('#nav a').forEach((link) => link.classList.toggle('current', link.getAttribute('href') === `#/${name}`));
  stopPage = entry.page(root, param);
}

function start(): void {
  const nav = document.getElementById('nav');
  if (nav) replace(nav, ...Object.entries(PAGES).filter(([, p]) => p.nav).map(([name, p]) => h('a', { href: `#/${name}` }, p.title)));
  document.getElementById('logout')?.addEventListener('click', async () => {
    await fetch('/api/auth/logout', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}', credentials: 'same-origin' });
    window.location.assign('/launcher-login');
  });
  window.addEventListener('hashchange', route);
  route();
}

start();
