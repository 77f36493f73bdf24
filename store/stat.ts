import { statSync, type Stats } from 'node:fs';

/**
 * The file's stats, or undefined when it cannot be read (missing, a path through a file, no permission). Files
 * checked on every turn are often missing (an optional prompt file, an absent skill root), and a stat that throws
 * builds an error and its stack each time.
 */
export function statOf(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
