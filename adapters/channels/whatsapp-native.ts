import { ownerOnlySession, writePairingQr } from '../../store/whatsapp-session.js';
import { CHAT_COMMANDS } from './command-names.js';
import { ChannelError, type Channel, type ChannelCapabilities, type ChannelHooks } from './channel.js';
import { renderMarkdown } from './markdown.js';
import { WHATSAPP_MAX_LENGTH } from './whatsapp-cloud.js';
import { renderQr } from './whatsapp-qr.js';

export interface WhatsAppNativeOptions {
  /** `settings.session_store_path`: the linked device's keys (owner-only). */
  sessionDir: string;
  /** Where the QR code goes for the terminal (the gateway's standard error). */
  showQr: (terminal: string) => void;
}

/** The parts of Baileys this channel uses. */
interface Baileys {
  default: (config: { auth: unknown; printQRInTerminal: boolean; browser?: [string, string, string] }) => BaileysSocket;
  useMultiFileAuthState(dir: string): Promise<{ state: unknown; saveCreds: () => Promise<void> }>;
}
interface BaileysSocket {
  ev: { on(event: string, listener: (data: never) => void): void };
  sendMessage(jid: string, content: { text: string }): Promise<{ key?: { id?: string } } | undefined>;
  sendPresenceUpdate(type: 'composing' | 'paused', jid: string): Promise<void>;
  end(error?: Error): void;
}
interface BaileysMessage {
  key: { id?: string; remoteJid?: string; fromMe?: boolean; participant?: string };
  message?: { conversation?: string; extendedTextMessage?: { text?: string } } | null;
  pushName?: string;
}

/** Baileys is optional: its `libsignal` comes from a git repository, which some machines cannot reach. */
const BAILEYS = '@whiskeysockets/baileys';

async function loadBaileys(): Promise<Baileys> {
  try {
    return (await import(BAILEYS)) as Baileys;
  } catch {
    throw new ChannelError(
      'bad_settings',
      `use_native needs ${BAILEYS}, which is not installed: run \`npm install ` +
        `${BAILEYS}\` where Tern is installed, or set bridge_url or the Cloud API fields`,
    );
  }
}

/**
 * WhatsApp as a linked device through Baileys (`use_native`): the first start shows a QR code (terminal and
 * `qr.json` for the dashboard) to scan under WhatsApp → Linked devices; the session's keys stay in the owner-only
 * session folder, so later starts connect without one.
 */
export class WhatsAppNativeChannel implements Channel {
  readonly kind = 'whatsapp';
  readonly capabilities: ChannelCapabilities = {
    commands: CHAT_COMMANDS,
    streaming: false,
    edits: false,
    maxMessageLength: WHATSAPP_MAX_LENGTH,
  };
  private socket: BaileysSocket | undefined;

  constructor(private readonly options: WhatsAppNativeOptions) {}

  async start(hooks: ChannelHooks): Promise<void> {
    const baileys = await loadBaileys();
    ownerOnlySession(this.options.sessionDir);
    const { state, saveCreds } = await baileys.useMultiFileAuthState(this.options.sessionDir);
    const socket = baileys.default({ auth: state, printQRInTerminal: false, browser: ['Tern', 'Chrome', '1.0'] });
    this.socket = socket;
    socket.ev.on('creds.update', () => void saveCreds().then(() => ownerOnlySession(this.options.sessionDir)));
    socket.ev.on(
      'connection.update',
      (update: { connection?: string; qr?: string; lastDisconnect?: { error?: Error } }) => {
        if (update.qr) {
          void renderQr(update.qr).then(({ terminal, dataUrl }) => {
            this.options.showQr(terminal);
            writePairingQr(this.options.sessionDir, dataUrl, new Date());
          });
        }
        if (update.connection === 'open') hooks.onConnected();
        if (update.connection === 'close' && this.socket === socket)
          hooks.onFailed(
            new ChannelError(
              'network',
              `WhatsApp closed the connection (${update.lastDisconnect?.error?.message ?? 'no reason'})`,
            ),
          );
      },
    );
    socket.ev.on('messages.upsert', (upsert: { type: string; messages: BaileysMessage[] }) => {
      if (upsert.type !== 'notify') return;
      for (const raw of upsert.messages) {
        const chat = raw.key.remoteJid;
        const text = raw.message?.conversation ?? raw.message?.extendedTextMessage?.text;
        if (!chat || raw.key.fromMe || text === undefined || !raw.key.id) continue;
        const group = chat.endsWith('@g.us');
        const sender = (group ? raw.key.participant : chat) ?? chat;
        const number = sender.split('@')[0]!;
        void hooks.onMessage({
          messageId: raw.key.id,
          chat: `${group ? 'group' : 'direct'}:${chat}`,
          replyTo: chat,
          sender: number,
          senderAliases: [number, `+${number}`, ...(raw.pushName ? [raw.pushName] : [])],
          text,
          mentioned: false,
        });
      }
    });
  }

  async stop(): Promise<void> {
    const socket = this.socket;
    this.socket = undefined;
    socket?.end();
  }

  async send(replyTo: string, text: string): Promise<string> {
    if (!this.socket) throw new ChannelError('network', 'WhatsApp is not connected');
    const sent = await this.socket.sendMessage(replyTo, { text: renderMarkdown(text, 'whatsapp') });
    return sent?.key?.id ?? '';
  }

  async edit(): Promise<void> {
    throw new ChannelError('platform', 'this channel does not edit WhatsApp messages');
  }

  async typing(replyTo: string): Promise<void> {
    await this.socket?.sendPresenceUpdate('composing', replyTo).catch(() => undefined);
  }

  async typingDone(replyTo: string): Promise<void> {
    await this.socket?.sendPresenceUpdate('paused', replyTo).catch(() => undefined);
  }
}
