import type { Socket } from 'node:net';

/** A line longer than this ends the connection: no message of the protocol comes near it. */
const MAX_LINE = 16 * 1024 * 1024;

export class ControlProtocolError extends Error {
  constructor(
    readonly code: 'bad_message' | 'line_too_long',
    message: string,
  ) {
    super(message);
    this.name = 'ControlProtocolError';
  }
}

/**
 * One JSON value per line each way over a socket. `parse` checks each incoming value (a zod schema's `safeParse`);
 * a line that is not one ends the connection with `onError`.
 */
export function jsonLines<T>(
  socket: Socket,
  parse: (value: unknown) => { success: true; data: T } | { success: false; error: { message: string } },
  handlers: { message(message: T): void; error(error: ControlProtocolError): void },
): { send(message: unknown): boolean } {
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    if (buffered.length > MAX_LINE && !buffered.includes('\n')) {
      handlers.error(new ControlProtocolError('line_too_long', `a line longer than ${MAX_LINE} bytes`));
      socket.destroy();
      return;
    }
    for (let end = buffered.indexOf('\n'); end >= 0 && !socket.destroyed; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      if (!line.trim()) continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        handlers.error(new ControlProtocolError('bad_message', 'a line that is not JSON'));
        socket.destroy();
        return;
      }
      const parsed = parse(value);
      if (!parsed.success) {
        handlers.error(new ControlProtocolError('bad_message', parsed.error.message));
        socket.destroy();
        return;
      }
      handlers.message(parsed.data);
    }
  });
  let corked = false;
  const send = (message: unknown): boolean => {
    if (socket.destroyed) return false;
    // What one turn of the event loop sends (a turn's cascade of events) goes out in one write: each write woke the
    // reader, and on a busy machine the writer lost its core to it for every event.
    if (!corked) {
      corked = true;
      socket.cork();
      setImmediate(() => {
        corked = false;
        socket.uncork();
      });
    }
    return socket.write(`${JSON.stringify(message)}\n`);
  };
  return { send };
}
