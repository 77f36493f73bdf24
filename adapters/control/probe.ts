import { connect } from 'node:net';

/** A connect that gets no answer by then is taken as a socket nobody serves. */
const PROBE_MS = 1000;

/**
 * Whether a process listens on the socket: `listening`, `stale` (the file is there and refuses connections: its
 * gateway died without removing it) or `absent`. A socket being bound right now also refuses for an instant: the
 * caller asks the token file whether its owner is alive before removing anything.
 */
export function probeSocket(path: string): Promise<'listening' | 'stale' | 'absent'> {
  return new Promise((resolve) => {
    const socket = connect(path);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve('stale');
    }, PROBE_MS);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve('listening');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      // Refused: nothing listens. Anything else (a folder in the way, no permission) the listen itself reports.
      resolve(error.code === 'ECONNREFUSED' || error.code === 'ENOTSOCK' ? 'stale' : 'absent');
    });
  });
}
