import * as z from 'zod';
import { PluginLoadError } from './api.js';

/** `plugins.entries.<name>.config` checked against the schema the plugin's manifest gives; no schema, no check. */
export function checkedPluginConfig(
  name: string,
  schema: Record<string, unknown> | undefined,
  config: Record<string, unknown>,
): Record<string, unknown> {
  if (!schema) return config;
  let checker: z.ZodType;
  try {
    checker = z.fromJSONSchema(schema);
  } catch (error) {
    throw new PluginLoadError(
      'config_invalid',
      `its config_schema is not a JSON schema Tern can check (${(error as Error).message})`,
    );
  }
  const parsed = checker.safeParse(config);
  if (parsed.success) return parsed.data as Record<string, unknown>;
  const problems = parsed.error.issues.map(
    (issue) =>
      `plugins.entries.${name}.config${issue.path.length > 0 ? `.${issue.path.join('.')}` : ''}: ${issue.message}`,
  );
  throw new PluginLoadError('config_invalid', problems.join('; '));
}
