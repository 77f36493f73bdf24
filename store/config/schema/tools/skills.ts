import * as z from 'zod/mini';
import { bool, int, oneOf, proxyUrl, remoteList, secret, text } from '../fields.js';
import { withDefault } from '../shared.js';

export const REGISTRY_TYPES = ['clawhub', 'github'] as const;
export type RegistryType = (typeof REGISTRY_TYPES)[number];

/** Fields every registry has; `timeout`, `max_zip_size` and `max_response_size` take 0 for the built-in default. */
const commonFields = {
  enabled: withDefault(bool(), true),
  auth_token: z.prefault(secret(), ''),
  /** A proxy for this registry's requests (http, https or SOCKS5); empty: none. */
  proxy: withDefault(proxyUrl(), ''),
  timeout: withDefault(int(0), 0),
  max_zip_size: withDefault(int(0), 0),
  max_response_size: withDefault(int(0), 0),
};

/** The ClawHub wire paths; empty means `/api/v1/search`, `/api/v1/skills`, `/api/v1/download`. */
const clawhubPaths = {
  search_path: withDefault(text(), ''),
  skills_path: withDefault(text(), ''),
  download_path: withDefault(text(), ''),
};

export const clawhubRegistrySchema = z.object({
  ...commonFields,
  base_url: withDefault(text(), 'https://clawhub.ai'),
  ...clawhubPaths,
});

export const githubRegistrySchema = z.object({
  ...commonFields,
  base_url: withDefault(text(), 'https://api.github.com'),
});

/**
 * A registry under a name of the user's choosing: ClawHub-style unless `type` says `github`. An empty `base_url`
 * means the type's default host.
 */
export const namedRegistrySchema = z.object({
  ...commonFields,
  type: withDefault(oneOf(REGISTRY_TYPES), 'clawhub'),
  base_url: withDefault(text(), ''),
  ...clawhubPaths,
});

export const skillsSchema = z.object({
  enabled: withDefault(bool(), true),
  /**
   * `clawhub` and `github` are the peer runtime's two registries (their kind is their name); any other name is a
   * registry of its own. The list form (`[{ "name": …, … }]`) is turned into this object form when the file is read.
   */
  registries: z.prefault(
    z.catchall(
      z.object({ clawhub: z.prefault(clawhubRegistrySchema, {}), github: z.prefault(githubRegistrySchema, {}) }),
      namedRegistrySchema,
    ),
    {},
  ),
  max_concurrent_searches: withDefault(int(1), 2),
  search_cache: z.prefault(z.object({ max_size: withDefault(int(0), 50), ttl_seconds: withDefault(int(0), 300) }), {}),
  /**
   * Remote chats that may run `install_skill` (`<channel>`, `<channel>:<chat_id>`, or `*`); every other remote
   * chat is refused, as `exec` is without `allow_remote`.
   */
  install_allowed_remotes: withDefault(remoteList(), []),
});
