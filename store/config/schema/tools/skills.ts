import { z } from 'zod';
import { bool, int, secret, text } from '../fields.js';

export const clawhubRegistrySchema = z.object({
  enabled: bool().default(true),
  base_url: text().default('https://clawhub.ai'),
  auth_token: secret().prefault(''),
  search_path: text().default(''),
  skills_path: text().default(''),
  download_path: text().default(''),
  timeout: int(0).default(0),
  max_zip_size: int(0).default(0),
  max_response_size: int(0).default(0),
});

export const githubRegistrySchema = z.object({
  enabled: bool().default(true),
  base_url: text().default('https://api.github.com'),
  auth_token: secret().prefault(''),
  proxy: text().default(''),
});

export const skillsSchema = z.object({
  enabled: bool().default(true),
  registries: z
    .object({ clawhub: clawhubRegistrySchema.prefault({}), github: githubRegistrySchema.prefault({}) })
    .prefault({}),
  max_concurrent_searches: int(1).default(2),
  search_cache: z.object({ max_size: int(0).default(50), ttl_seconds: int(0).default(300) }).prefault({}),
});
