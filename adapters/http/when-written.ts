import { AsyncLocalStorage } from 'node:async_hooks';
import type { Dispatcher } from 'undici';

const listeners = new AsyncLocalStorage<() => void>();

/**
 * Runs `call` and has every request it makes through this client (`client.ts`) call `listener` the moment undici
 * starts writing it to a connection, not when it is handed to the client: a request still waiting for a connection
 * (a new one, a proxy's, a platform that cannot be reached) has not left. The outbox's send journal learns here which
 * parts may have reached their chat.
 */
export function whenWritten<T>(listener: () => void, call: () => T): T {
  return listeners.run(listener, call);
}

/** The route's dispatcher, told about writes when the caller asked (`whenWritten`); as it is otherwise. */
export function toldOfWrites(dispatcher: Dispatcher): Dispatcher {
  const listener = listeners.getStore();
  if (listener === undefined) return dispatcher;
  return dispatcher.compose(
    (dispatch) => (options, handler) =>
      dispatch(options, {
        // undici calls this on the connection, right before the request's first byte is written.
        onRequestStart: (controller, context) => {
          listener();
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
