// A port a child process will listen on later. The kernel hands out listen(0) ports from its ephemeral range, which
// outgoing connections draw their local ports from too: between the probe's close and the child's listen, another
// test's connection could take the port (CI saw a gateway fail with EADDRINUSE). Ports below that range are taken
// only by something listening on them, so one is picked there, at random, and checked.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const LOWEST = 10_000;
const handedOut = new Set<number>();

function ephemeralStart(): number {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return first > LOWEST + 1000 ? first : 32_768;
  } catch {
    return 32_768;
  }
}

function listenable(port: number): Promise<boolean> {
  const probe = createServer();
  return new Promise((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  const end = ephemeralStart();
  for (;;) {
    const port = LOWEST + Math.floor(Math.random() * (end - LOWEST));
    if (handedOut.has(port) || !(await listenable(port))) continue;
    handedOut.add(port);
    return port;
  }
}
