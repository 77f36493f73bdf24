import { sendForText, type Route } from '../../http/client.js';
import { ChannelError } from '../channel.js';

const route: Route = { maxAnswerBytes: 4 * 1024 * 1024 };
const RENEW_BEFORE_MS = 60_000;

export interface DingTalkApiOptions {
  clientId: string;
  clientSecret: string;
  /** `https://api.dingtalk.com`, or a test server. */
  apiBase: string;
  /** The older API's root, where media are uploaded: `https://oapi.dingtalk.com`, or a test server. */
  oapiBase: string;
}

function parse(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * DingTalk's HTTP APIs: the OpenAPI with an app access token (renewed before it runs out, and after a 401) in
 * `x-acs-dingtalk-access-token`, and session webhooks (URLs that carry their own session). An error answer, by status
 * or by a non-zero `errcode`, becomes a `ChannelError` that names the call, never the URL (a webhook's holds a
 * session).
 */
export class DingTalkApi {
  private token: { value: string; until: number } | undefined;

  constructor(private readonly options: DingTalkApiOptions) {}

  async accessToken(): Promise<string> {
    if (this.token && Date.now() < this.token.until - RENEW_BEFORE_MS) return this.token.value;
    const answer = await this.post(
      `${this.options.apiBase}/v1.0/oauth2/accessToken`,
      { appKey: this.options.clientId, appSecret: this.options.clientSecret },
      'access token',
    );
    const value = typeof answer.accessToken === 'string' ? answer.accessToken : '';
    if (value === '') throw new ChannelError('unauthorized', 'DingTalk gave no access token');
    this.token = { value, until: Date.now() + Number(answer.expireIn ?? 7200) * 1000 };
    return value;
  }

  /** An OpenAPI call (`path` under the API root) with the app's access token. */
  async call(path: string, body: unknown): Promise<Record<string, unknown>> {
    const token = await this.accessToken();
    return this.post(`${this.options.apiBase}${path}`, body, path, { 'x-acs-dingtalk-access-token': token }).catch(
      (error: unknown) => {
        if (error instanceof ChannelError && error.code === 'unauthorized') this.token = undefined;
        throw error;
      },
    );
  }

  /**
   * Uploads a file to the older API's `media/upload` (multipart, the app's access token in the query) and gives its
   * `media_id`, which robot messages name. `type` is DingTalk's: image, voice, video or file.
   */
  async upload(type: 'image' | 'file', name: string, bytes: Buffer): Promise<string> {
    const token = await this.accessToken();
    const form = new FormData();
    form.set('type', type);
    form.set('media', new Blob([new Uint8Array(bytes)]), name);
    const encoded = new Response(form);
    const url = `${this.options.oapiBase}/media/upload?access_token=${encodeURIComponent(token)}&type=${type}`;
    const answer = await this.post(url, Buffer.from(await encoded.arrayBuffer()), 'media upload', {
      'content-type': encoded.headers.get('content-type') ?? '',
    });
    if (typeof answer.media_id !== 'string') throw new ChannelError('platform', 'DingTalk gave no media_id');
    return answer.media_id;
  }

  /** POSTs `body` to `url`, as JSON unless it is bytes already; `what` names the call in errors. */
  async post(
    url: string,
    body: unknown,
    what: string,
    headers: Record<string, string> = {},
  ): Promise<Record<string, unknown>> {
    const answer = await sendForText(route, {
      url,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: Buffer.isBuffer(body) ? body : JSON.stringify(body),
      firstByteTimeoutMs: 30_000,
    }).catch((error: Error) => {
      throw new ChannelError('network', `cannot reach DingTalk (${error.message})`);
    });
    const parsed = parse(answer.text);
    const errcode = typeof parsed.errcode === 'number' ? parsed.errcode : 0;
    if (answer.status < 300 && errcode === 0) return parsed;
    const code = String(parsed.code ?? (errcode || answer.status));
    const message = String(parsed.message ?? parsed.errmsg ?? '');
    const refused =
      answer.status === 401 || answer.status === 403 || /^(InvalidAuthentication|Forbidden|invalidClient)/i.test(code);
    throw new ChannelError(refused ? 'unauthorized' : 'platform', `DingTalk ${what}: ${code} ${message}`.trim());
  }
}
