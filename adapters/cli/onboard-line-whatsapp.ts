// `tern onboard`'s flags for LINE and WhatsApp (Cloud API, linked device or an external bridge). Secrets go to
// .security.yml, the rest to config.json, under the peer runtime's field names.
import type { SetupChannel } from '../../store/config/first-setup.js';
import type { OptionSpec, OptionValues } from './command.js';
import { UsageError } from './errors.js';

export const LINE_WHATSAPP_OPTIONS = {
  'line-channel-secret': {
    type: 'string',
    value: 'SECRET',
    description: 'add an enabled LINE channel: the channel secret (Basic settings), with --line-channel-access-token',
  },
  'line-channel-access-token': {
    type: 'string',
    value: 'TOKEN',
    description: 'and its long-lived channel access token (Messaging API tab)',
  },
  'whatsapp-phone-number-id': {
    type: 'string',
    value: 'ID',
    description: 'add an enabled WhatsApp Cloud API channel: the phone number id, with the three flags below',
  },
  'whatsapp-access-token': { type: 'string', value: 'TOKEN', description: "and a system user's access token" },
  'whatsapp-app-secret': { type: 'string', value: 'SECRET', description: "and the Meta app's secret" },
  'whatsapp-verify-token': {
    type: 'string',
    value: 'TOKEN',
    description: "and the verify token you enter in the app's webhook settings",
  },
  'whatsapp-native': {
    type: 'boolean',
    description: 'add an enabled WhatsApp channel as a linked device (Baileys; scan its QR code at the first start)',
  },
  'whatsapp-bridge-url': {
    type: 'string',
    value: 'URL',
    description: 'add an enabled WhatsApp channel through an external bridge (ws://…)',
  },
} as const satisfies Record<string, OptionSpec>;

const str = (values: OptionValues, name: string): string | undefined => {
  const value = values[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
};

function line(values: OptionValues): SetupChannel | undefined {
  const [secret, token] = [str(values, 'line-channel-secret'), str(values, 'line-channel-access-token')];
  if (!secret && !token) return undefined;
  if (!secret || !token) throw new UsageError('LINE needs both --line-channel-secret and --line-channel-access-token');
  return { name: 'line', settings: {}, secrets: { channel_secret: secret, channel_access_token: token } };
}

const CLOUD_FLAGS = [
  'whatsapp-phone-number-id',
  'whatsapp-access-token',
  'whatsapp-app-secret',
  'whatsapp-verify-token',
] as const;

/** One of the three modes: the four Cloud API flags together, `--whatsapp-native`, or `--whatsapp-bridge-url`. */
function whatsapp(values: OptionValues): SetupChannel | undefined {
  const cloud = CLOUD_FLAGS.filter((flag) => str(values, flag));
  const bridge = str(values, 'whatsapp-bridge-url');
  const native = values['whatsapp-native'] === true;
  const modes = [cloud.length > 0, native, bridge !== undefined].filter(Boolean).length;
  if (modes === 0) return undefined;
  if (modes > 1) {
    throw new UsageError(
      'WhatsApp takes one way: the Cloud API flags, --whatsapp-native or --whatsapp-bridge-url, not several',
    );
  }
  if (native) return { name: 'whatsapp', settings: { use_native: true }, secrets: {} };
  if (bridge) return { name: 'whatsapp', settings: { bridge_url: bridge }, secrets: {} };
  if (cloud.length < CLOUD_FLAGS.length)
    throw new UsageError(`WhatsApp's Cloud API needs ${CLOUD_FLAGS.map((f) => `--${f}`).join(', ')}`);
  const [phone = '', access = '', app = '', verify = ''] = CLOUD_FLAGS.map((flag) => str(values, flag) ?? '');
  return {
    name: 'whatsapp',
    settings: { phone_number_id: phone },
    secrets: { access_token: access, app_secret: app, verify_token: verify },
  };
}

/** The LINE and WhatsApp channels these flags ask for. */
export function lineWhatsAppFromFlags(values: OptionValues): SetupChannel[] {
  return [line(values), whatsapp(values)].filter((c): c is SetupChannel => c !== undefined);
}
