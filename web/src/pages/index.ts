import { chatPage } from './chat.js';
import { configPage } from './config.js';
import { eventsPage } from './events.js';
import { gatewayPage } from './gateway.js';
import { logsPage } from './logs.js';
import { machinesPage } from './machines.js';
import { memoryPage } from './memory.js';
import type { Page } from './page.js';
import { pairingPage } from './pairing.js';
import { pluginsPage } from './plugins.js';
import { sessionsPage } from './sessions.js';
import { skillsPage } from './skills.js';
import { inventoryPage } from './status.js';
import { turnPage } from './turn.js';
import { usagePage } from './usage.js';

/** A page at `#/<name>/<param>`; `nav: false` keeps it out of the menu (reached by links only). */
export type PageEntry = { name: string; title: string; page: Page; nav?: false };

/** Every page, in menu order: a new page is one import and one line here. */
export const PAGES: PageEntry[] = [
  { name: 'chat', title: 'Chat', page: chatPage },
  { name: 'machines', title: 'Machines', page: machinesPage },
  { name: 'sessions', title: 'Sessions', page: sessionsPage },
  { name: 'memory', title: 'Memory', page: memoryPage },
  { name: 'usage', title: 'Usage', page: usagePage },
  { name: 'events', title: 'Event log', page: eventsPage },
  { name: 'turn', title: 'Turn', page: turnPage, nav: false },
  { name: 'gateway', title: 'Gateway', page: gatewayPage },
  { name: 'config', title: 'Config', page: configPage },
  { name: 'logs', title: 'Logs', page: logsPage },
  { name: 'status', title: 'Status', page: inventoryPage },
  { name: 'pairing', title: 'Pairing', page: pairingPage },
  { name: 'plugins', title: 'Plugins', page: pluginsPage },
  { name: 'skills', title: 'Skills', page: skillsPage },
];
