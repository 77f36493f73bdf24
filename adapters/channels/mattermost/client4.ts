import type { Client4 } from '@mattermost/client';

/**
 * `@mattermost/client`'s Client4 class. The package is CommonJS and re-exports its classes through getters, which
 * Node's named-export detection misses when the bundled CLI imports it: the class is then on `default` only.
 */
export async function loadClient4(): Promise<typeof Client4> {
  const loaded = (await import('@mattermost/client')) as {
    Client4?: typeof Client4;
    default?: { Client4: typeof Client4 };
  };
  const found = loaded.Client4 ?? loaded.default?.Client4;
  if (!found) throw new Error('@mattermost/client has no Client4');
  return found;
}
