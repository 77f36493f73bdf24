import type { Envelope } from '../../bus/index.js';
import { socketUrl } from './api.js';

type Listener = (event: Envelope) => void;

const listeners = new Set<Listener>();
let socket: WebSocket | undefined;

function connect(): void {
  socket = new WebSocket(socketUrl('/api/live'));
  socket.addEventListener('message', (message) => {
    const frame = JSON.parse(String(message.data)) as { type: 'event'; event: Envelope };
    for (const listener of listeners) listener(frame.event);
  });
  socket.addEventListener('close', () => {
    socket = undefined;
    setTimeout(connect, 1000);
  });
}

/** Bus events as they happen (one shared `/api/live` socket); returns the unsubscribe. */
export function onLive(listener: Listener): () => void {
  if (!socket) connect();
  listeners.add(listener);
  return () => listeners.delete(listener);
}
