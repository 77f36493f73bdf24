import { z } from 'zod/mini';
import { bool, int, proxyUrl, secret, text } from '../fields.js';
import { withDefault } from '../shared.js';

export const clawhubRegistrySchema = z.object({
  enabled: withDefault(bool(), true),
  base_url: withDefault(text(), 'https://clawhub.ai'),
  auth_token: z.prefault(secret(), ''),
  search_path: withDefault(text(), ''),
  skills_path: withDefault(text(), ''),
  download_path: withDefault(text(), ''),
  timeout: withDefault(int(0), 0),
  max_zip_size: withDefault(int(0), 0),
  max_response_size: withDefault(int(0), 0),
});

export const githubRegistrySchema = z.object({
  enabled: withDefault(bool(), true),
  base_url: withDefault(text(), 'https://api.github.com'),
  auth_token: z.prefault(secret(), ''),
  proxy: withDefault(proxyUrl(), ''),
});

export const skillsSchema = z.object({
  enabled: withDefault(bool(), true),
  registries: z.prefault(
    z.object({ clawhub: z.prefault(clawhubRegistrySchema, {}), github: z.prefault(githubRegistrySchema, {}) }),
    {},
  ),
  max_concurrent_searches: withDefault(int(1), 2),
  search_cache: z.prefault(z.object({ max_size: withDefault(int(0), 50), ttl_seconds: withDefault(int(0), 300) }), {}),
});
