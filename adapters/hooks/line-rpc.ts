import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import * as z from 'zod';

/** Why a call over the line did not answer; the caller decides what that means (continue, deny). */
export class RpcError extends Error {
  constructor(
    readonly code: 'rpc_closed' | 'rpc_failed' | 'rpc_aborted' | 'rpc_backlog',
    message: string,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

const answerSchema = z.object({
  id: z.union([z.number(), z.string()]),
  result: z.unknown().optional(),
  error: z.object({ code: z.number(), message: z.string() }).optional(),
});

const requestSchema = z.object({ id: z.union([z.number(), z.string()]).optional(), method: z.string() });

type Waiter = { resolve: (value: unknown) => void; reject: (error: Error) => void };

/**
 * JSON-RPC 2.0, one JSON object per line, over a child's stdin and stdout. We are the client: requests carry
 * numeric ids, notifications none. A line that is not JSON-RPC is handed to `onNoise` (a hook printing its own
 * logs to stdout); a request from the other side is answered "method not found".
 */
export class LineRpc {
  private nextId = 1;
  private readonly pending = new Map<number, Waiter>();
  private closedBy: RpcError | undefined;

  constructor(
    input: Readable,
    private readonly output: Writable,
    private readonly onNoise: (line: string) => void = () => {},
  ) {
    const lines = createInterface({ input, crlfDelay: Infinity });
    lines.on('line', (line) => this.receive(line));
    lines.on('close', () => this.close('the process closed its output'));
    output.on('error', (error: Error) => this.close(`writing to the process failed (${error.message})`));
  }

  get closed(): boolean {
    return this.closedBy !== undefined;
  }

  /** The answer's `result`; rejects with the peer's error, when the line closes, or when `signal` aborts. */
  request(method: string, params: unknown, signal?: AbortSignal): Promise<unknown> {
    if (this.closedBy) return Promise.reject(this.closedBy);
    if (signal?.aborted) return Promise.reject(new RpcError('rpc_aborted', `${method} was cancelled`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.pending.delete(id);
        reject(new RpcError('rpc_aborted', `${method} got no answer in time`));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        resolve: (value) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(value);
        },
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      });
      this.write({ jsonrpc: '2.0', id, method, params });
    });
  }

  /**
   * Sends a notification; resolves once it is handed to the process's input pipe. A process that stopped reading
   * gets nothing more once `maxBacklog` bytes wait for it: the event is dropped rather than held without bound.
   */
  notify(method: string, params: unknown, maxBacklog = 1 << 20): Promise<void> {
    if (this.closedBy) return Promise.reject(this.closedBy);
    if (this.output.writableLength > maxBacklog)
      return Promise.reject(new RpcError('rpc_backlog', 'the process is not reading its input; the event was dropped'));
    return new Promise((resolve, reject) => {
      this.output.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`, (error) =>
        error ? reject(error) : resolve(),
      );
    });
  }

  close(why: string): void {
    if (this.closedBy) return;
    this.closedBy = new RpcError('rpc_closed', why);
    for (const waiter of this.pending.values()) waiter.reject(this.closedBy);
    this.pending.clear();
  }

  private write(message: Record<string, unknown>): void {
    this.output.write(`${JSON.stringify(message)}\n`);
  }

  private receive(line: string): void {
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return this.onNoise(line);
    }
    const answer = answerSchema.safeParse(message);
    if (answer.success && !('method' in (message as object))) return this.settle(answer.data);
    const request = requestSchema.safeParse(message);
    if (!request.success) return this.onNoise(line);
    if (request.data.id !== undefined && !this.closedBy) {
      this.write({
        jsonrpc: '2.0',
        id: request.data.id,
        error: { code: -32601, message: `method not found: ${request.data.method}` },
      });
    }
  }

  private settle(answer: z.infer<typeof answerSchema>): void {
    const id = typeof answer.id === 'number' ? answer.id : Number(answer.id);
    const waiter = this.pending.get(id);
    if (!waiter) return;
    this.pending.delete(id);
    if (answer.error) waiter.reject(new RpcError('rpc_failed', answer.error.message));
    else waiter.resolve(answer.result ?? {});
  }
}
