import type { Redactor } from '../../store/config/index.js';
import type { Channel, ChannelHooks, Choice, OutboundFile, WebhookAnswer, WebhookRequest } from './channel.js';

/**
 * A channel whose outgoing text passes the redactor first, whatever sends it: a reply, a streamed edit, the
 * `message` tool, a heartbeat or cron notice. `redactor` is asked at every send, so a reload's secrets apply.
 */
export class RedactingChannel implements Channel {
  readonly sendChoices?: (replyTo: string, text: string, choices: readonly Choice[]) => Promise<string>;
  readonly typingDone?: (replyTo: string) => Promise<void>;
  readonly download?: (fileId: string) => Promise<Buffer>;
  readonly sendFile?: (replyTo: string, file: OutboundFile) => Promise<string>;
  readonly webhook?: (request: WebhookRequest) => Promise<WebhookAnswer>;
  readonly webhookPath?: string;
  readonly upgrade?: Channel['upgrade'];
  readonly upgradePath?: string;
  readonly replyToOf?: (chat: string) => string;

  constructor(
    private readonly inner: Channel,
    private readonly redactor: () => Redactor,
  ) {
    const { sendChoices, typingDone, download, sendFile, webhook, upgrade, replyToOf } = inner;
    if (replyToOf) this.replyToOf = (chat) => replyToOf.call(inner, chat);
    if (webhook) this.webhook = (request) => webhook.call(inner, request);
    if (inner.webhookPath !== undefined) this.webhookPath = inner.webhookPath;
    if (upgrade) this.upgrade = (request, socket, head) => upgrade.call(inner, request, socket, head);
    if (inner.upgradePath !== undefined) this.upgradePath = inner.upgradePath;
    if (sendChoices)
      this.sendChoices = (replyTo, text, choices) =>
        sendChoices.call(inner, replyTo, this.redactor().text(text), choices);
    if (sendFile)
      this.sendFile = (replyTo, file) =>
        sendFile.call(
          inner,
          replyTo,
          file.caption === undefined ? file : { ...file, caption: this.redactor().text(file.caption) },
        );
    if (typingDone) this.typingDone = (replyTo) => typingDone.call(inner, replyTo);
    if (download) this.download = (fileId) => download.call(inner, fileId);
  }

  get kind(): string {
    return this.inner.kind;
  }

  get capabilities(): Channel['capabilities'] {
    return this.inner.capabilities;
  }

  start(hooks: ChannelHooks): Promise<void> {
    return this.inner.start(hooks);
  }

  stop(): Promise<void> {
    return this.inner.stop();
  }

  send(replyTo: string, text: string): Promise<string> {
    return this.inner.send(replyTo, this.redactor().text(text));
  }

  edit(replyTo: string, messageId: string, text: string): Promise<void> {
    return this.inner.edit(replyTo, messageId, this.redactor().text(text));
  }

  typing(replyTo: string): Promise<void> {
    return this.inner.typing(replyTo);
  }
}

// A method added to Channel must be added here too (a text it carries redacted), or the wrapper would drop it:
// this line stops compiling while one is missing.
export const COVERS_CHANNEL: [Exclude<keyof Channel, keyof RedactingChannel>] extends [never] ? true : never = true;
