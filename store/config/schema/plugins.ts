import * as z from 'zod/mini';
import { bool, int, text } from './fields.js';
import { optional, withDefault } from './shared.js';

export const pluginEntrySchema = z.object({
  enabled: withDefault(bool(), true),
  /** Loaded into the gateway's own process (tools, hooks, channels, commands); otherwise it runs as a child process. */
  trusted: withDefault(bool(), false),
  /** A package folder outside `<AGENT_HOME>/plugins` (a plugin in development). */
  path: optional(text()),
  /** Its hooks' place among the others: lower runs first. */
  priority: withDefault(int(-1_000_000, 1_000_000), 0),
  /** Handed to the plugin, checked against the config schema its manifest gives. */
  config: withDefault(z.record(z.string(), z.unknown()), {}),
});

export const pluginsSchema = z.object({
  enabled: withDefault(bool(), true),
  /**
   * Default `<AGENT_HOME>/plugins-data`, which the file tools refuse like credentials; a custom folder is not covered.
   */
  data_dir: optional(text()),
  /**
   * How long a plugin may take to load: a trusted one's import and `activate`, an untrusted one's start and answer to
   * `plugin.hello`. Past it the plugin is `failed` and the others load.
   */
  activate_timeout_ms: withDefault(int(100, 600_000), 10_000),
  entries: withDefault(z.record(z.string(), pluginEntrySchema), {}),
});
