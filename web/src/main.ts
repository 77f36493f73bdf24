import { hideTooltip } from './components/tooltip.js';
import { h, replace } from './dom.js';
import { PAGES } from './pages/index.js';

let stopPage: () => void = () => {};

/** `#/<page>/<param>`: one page at a time, each cleaning up after itself. */
function route(): void {
  const [, name = 'chat', ...rest] = window.location.hash.split('/');
  const param = rest.length ? decodeURIComponent(rest.join('/')) : undefined;
  const entry = PAGES.find((p) => p.name === decodeURIComponent(name)) ?? PAGES[0];
  const root = document.getElementById('page');
  if (!entry || !root) return;
  stopPage();
  hideTooltip();
  document.title = `Tern — ${entry.title}`;
  root.dataset.page = entry.name;
  document
    .querySelectorAll('#nav a')
    .forEach((link) => link.classList.toggle('current', link.getAttribute('href') === `#/${entry.name}`));
  document.querySelector('#nav a.current')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  stopPage = entry.page(root, param);
  // The hash this page was drawn for: until the router has handled a hash change, the last page is still here.
  root.dataset.route = window.location.hash;
  window.scrollTo(0, 0);
}

function start(): void {
  const nav = document.getElementById('nav');
  if (nav) {
    replace(nav, ...PAGES.filter((p) => p.nav !== false).map((p) => h('a', { href: `#/${p.name}` }, p.title)));
    // On a phone the nav fades out at its right edge while more of it is to scroll to.
    const edge = (): void => {
      nav.classList.toggle('scrolled-end', nav.scrollLeft + nav.clientWidth >= nav.scrollWidth - 2);
    };
    nav.addEventListener('scroll', edge, { passive: true });
    window.addEventListener('resize', edge);
    edge();
  }
  document.getElementById('logout')?.addEventListener('click', async () => {
    await fetch('/api/auth/logout', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
      credentials: 'same-origin',
    });
    window.location.assign('/launcher-login');
  });
  window.addEventListener('hashchange', route);
  route();
}

start();
