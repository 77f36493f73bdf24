import { sendForText, type Route } from '../../http/client.js';
import { ChannelError } from '../channel.js';

export interface QqApiOptions {
  appId: string;
  appSecret: string;
  /** The OpenAPI root: `https://api.sgroup.qq.com`, the sandbox's, or a test server. */
  apiBase: string;
  /** Where access tokens come from: `https://bots.qq.com/app/getAppAccessToken`. */
  tokenUrl: string;
}

const route: Route = { maxAnswerBytes: 4 * 1024 * 1024 };
/** A token is renewed this long before it runs out. */
const RENEW_BEFORE_MS = 60_000;

/**
 * The QQ bot OpenAPI: an access token from the AppID and AppSecret (renewed before it expires, and at once after a
 * 401), every call with `Authorization: QQBot <token>`. Errors never quote the token or the secret.
 */
export class QqApi {
  private token: { value: string; until: number } | undefined;

  constructor(private readonly options: QqApiOptions) {}

  async accessToken(): Promise<string> {
    if (this.token && Date.now() < this.token.until - RENEW_BEFORE_MS) return this.token.value;
    const answer = await sendForText(route, {
      url: this.options.tokenUrl,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ appId: this.options.appId, clientSecret: this.options.appSecret }),
      firstByteTimeoutMs: 15_000,
    }).catch((error: Error) => {
      throw new ChannelError('network', `cannot reach the QQ token endpoint (${error.message})`);
    });
    const body = parse(answer.text);
    const value = typeof body.access_token === 'string' ? body.access_token : '';
    if (value === '') {
      const why = typeof body.message === 'string' ? body.message : `HTTP ${answer.status}`;
      throw new ChannelError(
        'unauthorized',
        `QQ refused the AppID and AppSecret (${String(body.code ?? answer.status)} ${why})`,
      );
    }
    const seconds = Number(body.expires_in ?? 7200);
    this.token = { value, until: Date.now() + (Number.isFinite(seconds) ? seconds : 7200) * 1000 };
    return value;
  }

  /** One OpenAPI call; the answer's JSON. A refused token is renewed once. */
  async call(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: unknown,
    retried = false,
  ): Promise<Record<string, unknown>> {
    const token = await this.accessToken();
    const answer = await sendForText(route, {
      url: `${this.options.apiBase}${path}`,
      method,
      headers: {
        authorization: `QQBot ${token}`,
        'x-union-appid': this.options.appId,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      firstByteTimeoutMs: 30_000,
    }).catch((error: Error) => {
      throw new ChannelError('network', `cannot reach the QQ API (${error.message})`);
    });
    const parsed = parse(answer.text);
    if (answer.status === 401 && !retried) {
      this.token = undefined;
      return this.call(method, path, body, true);
    }
    if (answer.status >= 300) {
      const code = String(parsed.code ?? parsed.err_code ?? answer.status);
      const kind = answer.status === 401 ? 'unauthorized' : 'platform';
      throw new ChannelError(
        kind,
        `QQ ${method} ${path.replace(/\/[A-Za-z0-9_-]{16,}/g, '/…')}: ${code} ${String(parsed.message ?? '')}`.trim(),
      );
    }
    return parsed;
  }
}

function parse(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
