import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, normalize, sep } from 'node:path';
import * as z from 'zod';
import { HOOK_POINTS } from '../../bus/index.js';

export const MANIFEST_FILE = 'tern-plugin.json';

/** What a plugin may ask for; `config` means it brings a schema for `plugins.entries.<name>.config`. */
export const PLUGIN_CAPABILITIES = ['tools', 'hooks', 'channels', 'commands', 'config'] as const;
export type PluginCapability = (typeof PLUGIN_CAPABILITIES)[number];

const NAME = /^(@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/;

export const manifestSchema = z.object({
  name: z
    .string()
    .regex(NAME, { error: 'name must be a package name (lower case letters, digits, . _ -, optionally @scope/)' }),
  version: z.string().min(1, { error: 'version must not be empty' }),
  description: z.string().optional(),
  /** The module the plugin starts from, relative to its folder. */
  entry: z.string().min(1, { error: 'entry must name the plugin\'s module, e.g. "index.js"' }),
  capabilities: z
    .array(z.enum(PLUGIN_CAPABILITIES, { error: `capabilities must be some of ${PLUGIN_CAPABILITIES.join(', ')}` }))
    .default([]),
  /** A JSON schema for `plugins.entries.<name>.config`. */
  config_schema: z.record(z.string(), z.unknown()).optional(),
  /** For a plugin run as a child process: the hook points it intercepts and the events it observes. */
  hooks: z
    .object({ intercept: z.array(z.enum(HOOK_POINTS)).default([]), observe: z.array(z.string()).optional() })
    .optional(),
});
export type PluginManifest = z.infer<typeof manifestSchema>;

/** Why a package folder is not a plugin Tern can load; the message is what the user reads as the reason. */
export class PluginManifestError extends Error {
  constructor(
    readonly code: 'manifest_missing' | 'manifest_invalid' | 'entry_missing',
    message: string,
  ) {
    super(message);
    this.name = 'PluginManifestError';
  }
}

/** A plugin folder's manifest, checked, with its entry resolved inside the folder. */
export function readManifest(dir: string): { manifest: PluginManifest; entry: string } {
  const file = join(dir, MANIFEST_FILE);
  if (!existsSync(file)) throw new PluginManifestError('manifest_missing', `${MANIFEST_FILE} is missing in ${dir}`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new PluginManifestError(
      'manifest_invalid',
      `${MANIFEST_FILE} is not valid JSON (${(error as Error).message})`,
    );
  }
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(manifest)'}: ${issue.message}`);
    throw new PluginManifestError('manifest_invalid', `${MANIFEST_FILE}: ${problems.join('; ')}`);
  }
  const entryPath = normalize(parsed.data.entry);
  if (isAbsolute(entryPath) || entryPath.split(sep).includes('..'))
    throw new PluginManifestError('manifest_invalid', `${MANIFEST_FILE}: entry must stay inside the plugin's folder`);
  const entry = join(dir, entryPath);
  if (!existsSync(entry)) throw new PluginManifestError('entry_missing', `entry ${parsed.data.entry} does not exist`);
  return { manifest: parsed.data, entry };
}
