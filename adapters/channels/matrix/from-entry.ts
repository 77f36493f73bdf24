import { ChannelError, type Channel } from '../channel.js';
import { isSecret, type ChannelEntry } from '../../../store/config/index.js';
import { MatrixChannel } from './matrix.js';

/** A Matrix channel from its `channel_list` entry; a missing or malformed field is named with its path. */
export function matrixFromEntry(name: string, entry: ChannelEntry): Channel {
  const settings = entry.settings as Record<string, unknown>;
  const field = `channel_list.${name}.settings`;
  const textOf = (key: string): string | undefined => {
    const value = settings[key];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  const homeserver = textOf('homeserver');
  if (!homeserver || !/^https?:\/\//.test(homeserver)) {
    const why = "must be the homeserver's URL (allowed: http:// or https:// URL)";
    throw new ChannelError('bad_settings', `${field}.homeserver ${why}`);
  }
  const userId = textOf('user_id');
  if (!userId || !/^@[^:]+:.+$/.test(userId)) {
    throw new ChannelError('bad_settings', `${field}.user_id must be a full user id (allowed: @name:server)`);
  }
  const token = settings.access_token;
  const accessToken = isSecret(token) ? token.reveal() : '';
  if (accessToken === '') {
    throw new ChannelError('bad_settings', `${field}.access_token is missing (set it in config.json or .security.yml)`);
  }
  const format = textOf('message_format') ?? 'markdown';
  if (format !== 'markdown' && format !== 'plain') {
    const why = `"${format}" is not allowed (allowed: markdown, plain)`;
    throw new ChannelError('bad_settings', `${field}.message_format ${why}`);
  }
  const deviceId = textOf('device_id');
  return new MatrixChannel({
    homeserver,
    userId,
    accessToken,
    ...(deviceId ? { deviceId } : {}),
    joinOnInvite: settings.join_on_invite !== false,
    messageFormat: format,
  });
}
