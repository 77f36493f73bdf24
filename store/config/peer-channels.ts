import { formatPath } from './problems.js';
import { isRecord, objectAt, type RawObject } from './raw.js';

/**
 * The peer runtime keeps a channel's audience and manners beside `settings` (version 3: `allow_from`,
 * `group_trigger {mention_only, prefixes}`, `placeholder {enabled, text}`, `typing {enabled}`), or flat among the
 * platform fields (older files, which the migration puts under `settings`); Slack's bot token is `bot_token`. Here
 * they all live in `settings` under one name each, with `reasoning_channel_id`. Dropping `allow_from` would open a bot
 * to everyone, so each is moved, never ignored, and the move is noted.
 */
export function applyPeerChannels(raw: RawObject, notes: string[]): void {
  if (!isRecord(raw.channel_list)) return;
  const moved: string[] = [];
  for (const [name, entry] of Object.entries(raw.channel_list)) {
    if (!isRecord(entry)) continue;
    const settings = objectAt(entry, ['settings']);
    for (const key of ['allow_from', 'group_trigger', 'placeholder', 'typing'] as const) {
      if (!(key in entry)) continue;
      if (!(key in settings)) settings[key] = entry[key];
      delete entry[key];
      moved.push(formatPath(['channel_list', name, key]));
    }
    // The peer writes "" for none: that one is unset, not moved.
    if ('reasoning_channel_id' in entry) {
      const id = entry.reasoning_channel_id;
      if (id !== '' && !('reasoning_channel_id' in settings)) settings.reasoning_channel_id = id;
      delete entry.reasoning_channel_id;
      if (id !== '') moved.push(formatPath(['channel_list', name, 'reasoning_channel_id']));
    }
    if (readManners(settings)) moved.push(formatPath(['channel_list', name, 'settings']));
    if ((entry.type ?? name) === 'slack' && 'bot_token' in settings) {
      settings.token ??= settings.bot_token;
      delete settings.bot_token;
      moved.push(formatPath(['channel_list', name, 'settings', 'bot_token']));
    }
  }
  if (moved.length > 0) {
    notes.push(
      `${moved.join(', ')}: read into settings (allow_from, mention_only, ` +
        `prefixes, placeholder text, typing, token) as the peer runtime means them`,
    );
  }
}

/** The peer's objects for group triggers, the placeholder and typing as the flat settings here; says if any was. */
function readManners(settings: RawObject): boolean {
  let changed = false;
  if (isRecord(settings.group_trigger)) {
    const trigger = settings.group_trigger;
    if (trigger.mention_only !== undefined) settings.mention_only ??= trigger.mention_only;
    if (trigger.prefixes !== undefined) settings.prefixes ??= trigger.prefixes;
    delete settings.group_trigger;
    changed = true;
  }
  if ('group_trigger_prefix' in settings) {
    settings.prefixes ??= settings.group_trigger_prefix;
    delete settings.group_trigger_prefix;
    changed = true;
  }
  if (isRecord(settings.placeholder)) {
    const { enabled, text } = settings.placeholder;
    const first = Array.isArray(text) ? text.find((t) => typeof t === 'string' && t !== '') : text;
    if (enabled === true && typeof first === 'string' && first !== '') settings.placeholder = first;
    else delete settings.placeholder;
    changed = true;
  }
  if (isRecord(settings.typing)) {
    if (typeof settings.typing.enabled === 'boolean') settings.typing = settings.typing.enabled;
    else delete settings.typing;
    changed = true;
  }
  return changed;
}
