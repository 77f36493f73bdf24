import WebSocket from 'ws';

/**
 * Closes a channel's WebSocket with the close handshake, so the platform sees a clean goodbye, and ends it outright if
 * the other side has not answered within `graceMs`: a stopping gateway must not wait on a peer that went silent.
 */
export async function closeSocket(socket: WebSocket | undefined, graceMs = 2_000): Promise<void> {
  if (!socket || socket.readyState === WebSocket.CLOSED) return;
  await new Promise<void>((resolve) => {
    socket.once('close', () => resolve());
    socket.close();
    setTimeout(() => {
      socket.terminate();
      resolve();
    }, graceMs).unref();
  });
}
