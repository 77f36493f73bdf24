import type { Envelope } from '../../bus/index.js';
import { socketUrl } from './api.js';
import type { GatewayStatus } from '../../bus/api-shapes.js';

type Frame = { type: 'event'; event: Envelope } | { type: 'gateway'; status: GatewayStatus };
type Listener = (event: Envelope) => void;
type StatusListener = (status: GatewayStatus) => void;

const listeners = new Set<Listener>();
const statusListeners = new Set<StatusListener>();
let socket: WebSocket | undefined;
let status: GatewayStatus | undefined;

function connect(): void {
  socket = new WebSocket(socketUrl('/api/live'));
  socket.addEventListener('message', (message) => {
    const frame = JSON.parse(String(message.data)) as Frame;
    if (frame.type === 'gateway') {
      status = frame.status;
      for (const listener of statusListeners) listener(frame.status);
    } else for (const listener of listeners) listener(frame.event);
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

/** The gateway's status now (once known) and at every change; returns the unsubscribe. */
export function onGateway(listener: StatusListener): () => void {
  if (!socket) connect();
  statusListeners.add(listener);
  if (status) listener(status);
  return () => statusListeners.delete(listener);
}
