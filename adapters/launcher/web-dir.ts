import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// From sources (adapters/launcher) the repository's web/ is two levels up; from the build (dist/adapters/launcher)
// three.
const CANDIDATES = ['../../web/', '../../../web/'];

/** The folder holding the browser files: `auth/` pages now, the dashboard bundle later. */
export function defaultWebDir(): string {
  const found = CANDIDATES.map((relative) => fileURLToPath(new URL(relative, import.meta.url))).find((dir) =>
    existsSync(`${dir}auth`),
  );
  return found ?? fileURLToPath(new URL(CANDIDATES[0]!, import.meta.url));
}
