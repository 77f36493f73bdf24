import type { Response } from 'got';
import { loadGot, type GotModule } from '../got.js';
import { postText, TransportError, type PostedAnswer } from '../http/json-post.js';
import { classifyFailure } from './classify.js';
import { ProviderError } from './errors.js';
import { multipartBody, type FormPart } from './multipart.js';
import { SseParser, type SseEvent } from './sse.js';

/** A body already serialized by its client (parts of it cached), sent as it is. */
export class JsonBytes {
  constructor(readonly bytes: Buffer) {}
}

export interface HttpCall {
  url: string;
  headers: Record<string, string>;
  /** Sent as JSON: serialized here, unless the client already did (`JsonBytes`). */
  body: unknown;
  signal?: AbortSignal;
  /** Non-streaming: the whole request. Streaming: waiting for the answer to start, and any silence after. */
  timeoutMs?: number;
}

const defaultTimeoutMs = 120_000;

const base = { throwHttpErrors: false, retry: { limit: 0 }, followRedirect: false } as const;

const bodyOf = (call: HttpCall): string | Buffer => (call.body instanceof JsonBytes ? call.body.bytes : JSON.stringify(call.body));

function request(call: HttpCall) {
  return {
    ...base,
    headers: { 'content-type': 'application/json', ...call.headers },
    body: bodyOf(call),
    signal: call.signal,
  };
}

/** Transport failures become `timeout` or `network`; an abort the caller asked for stays what it is. */
function transportError(error: unknown, call: HttpCall, { RequestError }: GotModule): unknown {
  if (error instanceof ProviderError || call.signal?.aborted) return error;
  if (error instanceof RequestError) {
    const code = error.code === 'ETIMEDOUT' ? 'timeout' : 'network';
    return new ProviderError({ code, message: `${error.code}: ${error.message}` });
  }
  return error;
}

function failed(response: Pick<Response, 'statusCode' | 'headers'>, body: string): ProviderError {
  return classifyFailure(response.statusCode, body, response.headers['retry-after']);
}

// A client passes the same headers object on every call while its request headers stay the same, so the headers
// as sent (the content type first) are one object too, whose head the transport checks and writes once.
const jsonHeaders = new WeakMap<Record<string, string>, Record<string, string>>();

function withJsonType(headers: Record<string, string>): Record<string, string> {
  let sent = jsonHeaders.get(headers);
  if (sent === undefined) {
    sent = { 'content-type': 'application/json', ...headers };
    jsonHeaders.set(headers, sent);
  }
  return sent;
}

/** POSTs JSON and returns the parsed JSON answer. */
export async function postJson(call: HttpCall): Promise<unknown> {
  let response: PostedAnswer;
  try {
    response = await postText(call.url, withJsonType(call.headers), bodyOf(call), {
      signal: call.signal,
      timeoutMs: call.timeoutMs ?? defaultTimeoutMs,
    });
  } catch (error) {
    if (!(error instanceof TransportError) || call.signal?.aborted) throw error;
    throw new ProviderError({ code: error.code === 'ETIMEDOUT' ? 'timeout' : 'network', message: `${error.code}: ${error.message}` });
  }
  if (response.statusCode >= 300) throw failed(response, response.body);
  return parseJson(response.body);
}

/** POSTs multipart form data (media endpoints) and returns the parsed JSON answer. */
export async function postForm(call: Omit<HttpCall, 'body'> & { parts: FormPart[] }): Promise<unknown> {
  const form = multipartBody(call.parts);
  let response: Response<string>;
  const lib = await loadGot();
  try {
    response = await lib.default.post(call.url, {
      ...base, headers: { ...call.headers, 'content-type': form.contentType }, body: form.body, signal: call.signal,
      timeout: { request: call.timeoutMs ?? defaultTimeoutMs },
    });
  } catch (error) {
    throw transportError(error, { ...call, body: undefined }, lib);
  }
  if (response.statusCode >= 300) throw failed(response, response.body);
  return parseJson(response.body);
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderError({ code: 'unknown', message: `answer is not JSON: ${text.slice(0, 120)}` });
  }
}

/** POSTs JSON and hands each server-sent event to `onEvent` as it arrives. */
export async function postSse(call: HttpCall, onEvent: (event: SseEvent) => void): Promise<void> {
  const timeoutMs = call.timeoutMs ?? defaultTimeoutMs;
  const lib = await loadGot();
  const stream = lib.default.stream.post(call.url, { ...request(call), timeout: { response: timeoutMs, socket: timeoutMs } });
  try {
    const response = await new Promise<Response>((resolve, reject) => {
      stream.once('response', resolve);
      stream.once('error', reject);
    });
    if (response.statusCode >= 300) {
      const body: Buffer[] = [];
      for await (const chunk of stream) body.push(chunk as Buffer);
      throw failed(response, Buffer.concat(body).toString('utf8'));
    }
    const parser = new SseParser();
    for await (const chunk of stream) {
      for (const event of parser.push(chunk as Buffer)) onEvent(event);
    }
    for (const event of parser.end()) onEvent(event);
  } catch (error) {
    stream.destroy();
    throw transportError(error, call, lib);
  }
}
