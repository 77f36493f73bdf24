import type { IncomingHttpHeaders } from 'node:http';
import { createParser } from 'eventsource-parser';
import {
  bodyPieces,
  send,
  sendForBytes,
  sendForText,
  TransportError,
  type HttpRequest,
  type Route,
} from '../http/client.js';
import { classifyFailure } from './classify.js';
import { ProviderError } from './errors.js';
import { multipartBody, type FormPart } from './multipart.js';

/** One server-sent event; `event` is `message` when the stream names none. */
export interface SseEvent {
  event: string;
  data: string;
}

export interface HttpCall {
  url: string;
  headers: Record<string, string>;
  /** Sent as JSON: serialized here unless the client already did (a string, or its UTF-8 bytes). */
  body: unknown;
  signal?: AbortSignal;
  /** The entry's proxy and answer size cap. */
  route?: Route;
  /** Waiting for the answer to start; the body may then pause for as long between its pieces. */
  firstByteTimeoutMs?: number;
}

/**
 * Transport failures as provider failures: timeouts are retried as `timeout`, the rest as `network`; too large is
 * final.
 */
function providerError(error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted || !(error instanceof TransportError)) return error;
  switch (error.code) {
    case 'connect_timeout':
    case 'first_byte_timeout':
    case 'idle_timeout':
      return new ProviderError({ code: 'timeout', message: error.message });
    case 'too_large':
      return new ProviderError({
        code: 'too_large',
        message: `${error.message} (max_response_bytes of the model entry)`,
      });
    default:
      return new ProviderError({ code: 'network', message: error.message });
  }
}

function request(call: HttpCall, headers: Record<string, string>, body: string | Buffer): HttpRequest {
  return {
    url: call.url,
    method: 'POST',
    headers,
    body,
    signal: call.signal,
    ...(call.firstByteTimeoutMs !== undefined
      ? { firstByteTimeoutMs: call.firstByteTimeoutMs, idleTimeoutMs: call.firstByteTimeoutMs }
      : {}),
  };
}

const jsonBody = (body: unknown): string | Buffer =>
  typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);

function failed(status: number, headers: IncomingHttpHeaders, body: string): ProviderError {
  return classifyFailure(status, body, headers['retry-after']);
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderError({ code: 'unknown', message: `answer is not JSON: ${text.slice(0, 120)}` });
  }
}

/** POSTs JSON and returns the parsed JSON answer. */
export async function postJson(call: HttpCall): Promise<unknown> {
  const answer = await sendForText(
    call.route ?? {},
    request(call, { 'content-type': 'application/json', ...call.headers }, jsonBody(call.body)),
  ).catch((error: unknown) => {
    throw providerError(error, call.signal);
  });
  if (answer.status >= 300) throw failed(answer.status, answer.headers, answer.text);
  return parseJson(answer.text);
}

/** POSTs multipart form data (media endpoints) and returns the parsed JSON answer. */
export async function postForm(call: Omit<HttpCall, 'body'> & { parts: FormPart[] }): Promise<unknown> {
  const form = multipartBody(call.parts);
  const answer = await sendForText(
    call.route ?? {},
    request({ ...call, body: undefined }, { ...call.headers, 'content-type': form.contentType }, form.body),
  ).catch((error: unknown) => {
    throw providerError(error, call.signal);
  });
  if (answer.status >= 300) throw failed(answer.status, answer.headers, answer.text);
  return parseJson(answer.text);
}

/** GETs a file (a generated image given by URL). */
export async function getBytes(
  url: string,
  options: Pick<HttpCall, 'signal' | 'route' | 'firstByteTimeoutMs'>,
): Promise<{ status: number; bytes: Buffer }> {
  const call: HttpRequest = {
    url,
    signal: options.signal,
    ...(options.firstByteTimeoutMs !== undefined ? { firstByteTimeoutMs: options.firstByteTimeoutMs } : {}),
  };
  const answer = await sendForBytes(options.route ?? {}, call).catch((error: unknown) => {
    throw providerError(error, options.signal);
  });
  return { status: answer.status, bytes: answer.bytes };
}

/** POSTs JSON and hands each server-sent event to `onEvent` as it arrives (parsed by eventsource-parser). */
export async function postSse(call: HttpCall, onEvent: (event: SseEvent) => void): Promise<void> {
  const route = call.route ?? {};
  const sent = request(call, { 'content-type': 'application/json', ...call.headers }, jsonBody(call.body));
  try {
    const answer = await send(route, sent);
    const pieces = bodyPieces(answer, sent, route);
    if (answer.status >= 300) {
      const body: Buffer[] = [];
      for await (const piece of pieces) body.push(piece);
      throw failed(answer.status, answer.headers, Buffer.concat(body).toString('utf8'));
    }
    // An event the client cannot use throws out of `feed`, which ends the loop and closes the answer.
    const parser = createParser({ onEvent: (event) => onEvent({ event: event.event ?? 'message', data: event.data }) });
    const decoder = new TextDecoder();
    for await (const piece of pieces) parser.feed(decoder.decode(piece, { stream: true }));
    parser.feed(decoder.decode());
  } catch (error) {
    throw providerError(error, call.signal);
  }
}
