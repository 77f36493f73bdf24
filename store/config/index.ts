export { ConfigError, type ConfigErrorCode } from './errors.js';
export { loadConfig, validateConfig, type LoadedConfig, type LoadOptions, type Validation } from './load.js';
export { maskedConfig } from './mask.js';
export { hasMaskedUrlPassword, hasUrlPassword, maskUrlPassword } from './url-credentials.js';
export { Secret, isSecret, secretValues } from './secret.js';
export { Redactor, redactorOf, REDACTED, rememberSecrets, printRedactor } from './redactor.js';
export { proxyCredentials, runtimeSecrets, withoutProxyCredentials, PROXY_VARIABLES } from './runtime-secrets.js';
export { watchConfig, CONFIG_POLL_MS, type WatchOptions } from './watch.js';
export {
  configSchema,
  CONFIG_VERSION,
  type Config,
  type ConfigInput,
  type ModelEntry,
  type ChannelEntry,
  type McpServer,
  type ProcessHookEntry,
  type PluginEntry,
} from './schema/index.js';
export { WEB_UI_CHANNEL_TYPE } from './schema/channel-list.js';
