import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';

/** The states of a plugin package, exactly as the spec names them. */
export const PLUGIN_STATES = ['not enabled', 'disabled', 'ready', 'degraded', 'failed'] as const;
export type PluginState = (typeof PLUGIN_STATES)[number];

export const pluginEvents = {
  /**
   * A plugin package's state as the gateway found it (loaded, degraded by a capability, failed), with the reason shown.
   */
  'plugin.state': lazySchema(() =>
    z.object({
      plugin: z.string(),
      version: z.string().optional(),
      state: z.enum(PLUGIN_STATES),
      reason: z.string().optional(),
      path: z.string(),
    }),
  ),
} as const;
