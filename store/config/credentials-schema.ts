import * as z from 'zod';

const keys = z.object({
  api_keys: z.array(z.string()).optional(),
  api_key: z.string().optional(),
});

const channelSecrets = z.record(z.string(), z.record(z.string(), z.string()));

/**
 * `.security.yml`: secrets kept apart from `config.json`, keyed like the config fields they fill.
 * `channels` and `skills.github.token` are the peer runtime's spellings.
 */
export const credentialsSchema = z.looseObject({
  model_list: z.record(z.string(), keys).optional(),
  web: z.record(z.string(), keys).optional(),
  channel_list: channelSecrets.optional(),
  channels: channelSecrets.optional(),
  skills: z
    .object({
      registries: z.record(z.string(), z.object({ auth_token: z.string() })).optional(),
      github: z.object({ token: z.string() }).optional(),
    })
    .optional(),
  launcher_token: z.string().optional(),
  cluster: z
    .object({ token: z.string().optional(), user: z.string().optional(), password: z.string().optional() })
    .optional(),
});

export type Credentials = z.output<typeof credentialsSchema>;
