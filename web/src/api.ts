export type ApiReply<T> = { ok: boolean; status: number; body: T };
export type ApiErrorBody = { error?: { code: string; message: string }; issues?: string[] };

async function request<T>(method: string, path: string, body?: unknown): Promise<ApiReply<T>> {
  const response = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 401) window.location.assign('/launcher-login');
  const parsed = (await response.json().catch(() => ({}))) as T;
  return { ok: response.ok, status: response.status, body: parsed };
}

export const getJson = <T>(path: string) => request<T & ApiErrorBody>('GET', path);
export const sendJson = <T>(method: 'POST' | 'PUT' | 'DELETE', path: string, body: unknown = {}) =>
  request<T & ApiErrorBody>(method, path, body);

export function errorText(body: ApiErrorBody, status: number): string {
  return body.error ? `${body.error.message} (${body.error.code})` : `the launcher answered ${status}`;
}

export function socketUrl(path: string): string {
  return `${window.location.protocol === 'https:' ? 'wss' : 'ws'}://${window.location.host}${path}`;
}
