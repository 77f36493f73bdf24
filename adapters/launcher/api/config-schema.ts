import * as z from 'zod/mini';
import { configSchema } from '../../../store/config/index.js';
import { channelKindSettings } from '../../../store/config/schema/channel-kinds.js';
import { secret } from '../../../store/config/schema/fields.js';
import type { ConfigSchemaReply, JsonSchema } from '../../../bus/api-shapes.js';

/**
 * A secret reads as "a Secret or a string"; for the form it is a string the browser may write but never read
 * (JSON Schema's `writeOnly`), so it draws a masked, replaceable field.
 */
function asJsonSchema(schema: z.core.$ZodType): JsonSchema {
  const secretSchema = secret();
  return z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      if (zodSchema !== secretSchema) return;
      for (const key of Object.keys(jsonSchema)) delete (jsonSchema as Record<string, unknown>)[key];
      Object.assign(jsonSchema, { type: 'string', writeOnly: true });
    },
  }) as JsonSchema;
}

let built: ConfigSchemaReply | undefined;

/** The config's JSON Schema and each channel kind's settings, built on first request and kept (both are fixed). */
export function configJsonSchema(): ConfigSchemaReply {
  built ??= {
    schema: asJsonSchema(configSchema),
    channel_kinds: Object.fromEntries(
      Object.entries(channelKindSettings).map(([kind, schema]) => [kind, asJsonSchema(schema)]),
    ),
  };
  return built;
}
