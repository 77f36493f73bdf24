import { AsyncLocalStorage } from 'node:async_hooks';
import type { Dispatcher } from 'undici';

/** What the caller of `whenWritten` is told: before a request is dispatched (awaited), and as it is written. */
interface Listener {
  written: () => void;
  before?: () => Promise<void>;
}

const listeners = new AsyncLocalStorage<Listener>();

/**
 * Runs `call` and has every request it makes through this client (`client.ts`) call `written` the moment undici
 * starts writing it to a connection, not when it is handed to the client: a request still waiting for a connection
 * (a new one, a proxy's, a platform that cannot be reached) has not left. The outbox's send journal learns here which
 * parts may have reached their chat. `before`, when given, is awaited right before each request is dispatched (a
 * cluster's `leaving` mark is stored then, #40); a request whose `before` throws is not made and the call fails with
 * that error, and so does one whose `written` throws (its request is aborted unwritten).
 */
export function whenWritten<T>(written: () => void, call: () => T, before?: () => Promise<void>): T {
  return listeners.run(before ? { written, before } : { written }, call);
}

/**
 * The route's dispatcher, told about writes when the caller asked (`whenWritten`), once the caller's `before` is done;
 * as it is otherwise. Awaited right before the request is dispatched.
 */
export async function toldOfWrites(dispatcher: Dispatcher): Promise<Dispatcher> {
  const listener = listeners.getStore();
  if (listener === undefined) return dispatcher;
  await listener.before?.();
  return dispatcher.compose(
    (dispatch) => (options, handler) =>
      dispatch(options, {
        // undici calls this on the connection, right before the request's first byte is written (`writeH1` writes
        // it in the same call unless the request was aborted here, so a `written` that throws keeps it unwritten).
        onRequestStart: (controller, context) => {
          try {
            listener.written();
          } catch (error) {
            controller.abort(error instanceof Error ? error : new Error(String(error)));
          }
          handler.onRequestStart?.(controller, context);
        },
        onRequestUpgrade: (controller, statusCode, headers, socket) =>
          handler.onRequestUpgrade?.(controller, statusCode, headers, socket),
        onResponseStart: (controller, statusCode, headers, statusMessage) =>
          handler.onResponseStart?.(controller, statusCode, headers, statusMessage),
        onResponseData: (controller, chunk) => handler.onResponseData?.(controller, chunk),
        onResponseEnd: (controller, trailers) => handler.onResponseEnd?.(controller, trailers),
        onResponseError: (controller, error) => handler.onResponseError?.(controller, error),
      }),
  );
}
