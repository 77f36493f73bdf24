import { credentialsPath } from '../paths.js';
import { setCredentials, type CredentialEntry } from './credentials-edit.js';
import { ConfigError } from './errors.js';
import { validateConfig } from './load.js';
import { readRawConfig, writeRawConfig } from './raw-file.js';
import { isRecord, objectAt, type RawObject } from './raw.js';

/** The first model `tern onboard` sets up: its entry in config.json, its key in .security.yml. */
export interface SetupModel {
  model_name: string;
  provider: string;
  model: string;
  api_base?: string;
  api_key?: string;
}

/**
 * A chat channel and its secrets (`token`, Slack's `app_token`), kept in .security.yml; other settings in the config.
 */
export interface SetupChannel {
  name: string;
  secrets: Record<string, string>;
  /** The owner's user id or @name there: `settings.allow_from` (empty: pairing only). */
  allowFrom?: string[];
  settings?: Record<string, unknown>;
}

export interface FirstSetup {
  model?: SetupModel;
  channels: SetupChannel[];
}

function addModel(raw: RawObject, model: SetupModel, file: string, credentials: CredentialEntry[]): void {
  const list = Array.isArray(raw.model_list) ? raw.model_list : [];
  if (list.some((entry) => isRecord(entry) && entry.model_name === model.model_name)) {
    throw new ConfigError('config_invalid', file, [
      `model_list: already has a model_name ${JSON.stringify(model.model_name)} ` +
        `(allowed: a new name; pick another with --model-name)`,
    ]);
  }
  list.push({
    model_name: model.model_name,
    provider: model.provider,
    model: model.model,
    ...(model.api_base ? { api_base: model.api_base } : {}),
  });
  raw.model_list = list;
  const defaults = objectAt(raw, ['agents', 'defaults']);
  defaults.model ??= model.model_name;
  if (model.api_key) credentials.push({ path: ['model_list', model.model_name, 'api_keys'], value: [model.api_key] });
}

function addChannel(raw: RawObject, channel: SetupChannel, file: string, credentials: CredentialEntry[]): void {
  const channels = objectAt(raw, ['channel_list']);
  if (channel.name in channels) {
    throw new ConfigError('config_invalid', file, [
      `channel_list.${channel.name}: is there already (allowed: edit it in the file)`,
    ]);
  }
  const settings = { ...channel.settings, ...(channel.allowFrom?.length ? { allow_from: channel.allowFrom } : {}) };
  channels[channel.name] = { enabled: true, type: channel.name, ...(Object.keys(settings).length ? { settings } : {}) };
  for (const [key, value] of Object.entries(channel.secrets))
    credentials.push({ path: ['channel_list', channel.name, key], value });
}

/**
 * Adds what `tern onboard` asked for to the config file and its secrets to `.security.yml` (0600): the credentials
 * are written first, so a config never names a key that is not there. The config must still validate, or nothing
 * is written. Returns the files written.
 */
export function writeFirstSetup(configFile: string, env: NodeJS.ProcessEnv, setup: FirstSetup): string[] {
  const raw = readRawConfig(configFile);
  const credentials: CredentialEntry[] = [];
  if (setup.model) addModel(raw, setup.model, configFile, credentials);
  for (const channel of setup.channels) addChannel(raw, channel, configFile, credentials);
  if (!setup.model && setup.channels.length === 0) return [];
  const validation = validateConfig(raw);
  if (!validation.ok) throw new ConfigError('config_invalid', configFile, validation.problems);
  const secrets = credentialsPath(env);
  if (credentials.length > 0) setCredentials(secrets, credentials);
  writeRawConfig(configFile, raw);
  return credentials.length > 0 ? [secrets, configFile] : [configFile];
}
