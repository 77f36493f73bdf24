import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { ToolError } from '../tool.js';
import { sealedStdio } from './inherited-descriptors.js';
import { hearPipeErrors } from './pipe-errors.js';

/**
 * The sandbox's own network: a user and network namespace made by `unshare` around bubblewrap, joined by
 * slirp4netns, which gives it a tap device (10.0.2.100, gateway 10.0.2.2, resolver 10.0.2.3) and forwards its
 * connections from the host as ordinary sockets. `--disable-host-loopback` refuses connections to the host's
 * 127.0.0.0/8, so the gateway, the launcher, NATS and local models stay out of reach while the internet does not.
 * bubblewrap cannot make the namespace itself here: with a sandbox uid other than 0 it moves the command into a
 * second user namespace, and slirp4netns, joining that one, may not enter the network namespace of the first.
 */
export const SLIRP_RESOLVER = '10.0.2.3';

/** `unshare`'s part of the command line, before bubblewrap. */
export const NETWORK_NAMESPACE = ['unshare', '--user', '--map-root-user', '--net', '--'];

const READY_TIMEOUT_MS = 10_000;

/** slirp4netns is missing or failed; `reason` says which, for a person. */
export class SandboxNetworkError extends ToolError {
  constructor(readonly reason: string) {
    super('sandbox_network', `the sandbox's network could not be set up: ${reason}`);
  }
}

export class SlirpNetwork {
  private constructor(private readonly child: ChildProcess) {}

  /**
   * Connects the network namespace that process `pid` (started by `unshare`, bubblewrap by now) is in; resolves
   * once the tap device is up.
   */
  static attach(program: string, pid: number): Promise<SlirpNetwork> {
    return new Promise((resolve, reject) => {
      const args = [
        '--configure',
        '--mtu=65520',
        '--disable-host-loopback',
        '--ready-fd=3',
        '--exit-fd=4',
        String(pid),
        'tap0',
      ];
      const child = spawn(program, args, { stdio: sealedStdio(['ignore', 'ignore', 'pipe', 'pipe', 'pipe']) });
      hearPipeErrors(child);
      let stderr = '';
      const fail = (why: string) => {
        clearTimeout(timer);
        child.kill('SIGKILL');
        reject(new SandboxNetworkError(why));
      };
      const timer = setTimeout(
        () => fail(`${program} was not ready after ${READY_TIMEOUT_MS / 1000} s`),
        READY_TIMEOUT_MS,
      );
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', (error) =>
        fail(
          (error as NodeJS.ErrnoException).code === 'ENOENT'
            ? `${program} is not installed`
            : `${program}: ${error.message}`,
        ),
      );
      child.on('exit', (code) => fail(`${program} exited with code ${code}: ${lastLine(stderr)}`));
      (child.stdio[3] as Readable).once('data', () => {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.removeAllListeners('error');
        child.on('error', () => {});
        resolve(new SlirpNetwork(child));
      });
    });
  }

  /** Ends slirp4netns: closing its exit descriptor is its signal, SIGKILL the fallback. */
  close(): void {
    (this.child.stdio[4] as Writable).destroy();
    this.child.kill('SIGKILL');
  }
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1) || '(no message)';
}
