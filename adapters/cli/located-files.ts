import { statSync } from 'node:fs';

/** A file found by a search (a package's resolution, node-gyp-build's choice of a native addon), and the folder whose change may change the answer. */
export interface Location {
  file: string;
  dir: string;
}

interface Kept extends Location {
  dirMtimeMs: number;
}

/** Variables node-gyp-build reads to choose another build: while any is set, every run searches again. */
const CHOOSES_BUILD = /^(PREBUILDS_ONLY|LIBC|ARM_VERSION|npm_config_arch|npm_config_platform|.+_PREBUILD)$/;

/**
 * Files the bundled lmdb looks for at every start (`require.resolve('lmdb')`, its addon, msgpackr's extractor),
 * remembered from the last run of the same command: resolving them walked node_modules and loaded node-gyp-build
 * with detect-libc, ~4% of the instructions to the gateway's `/ready`. A kept answer is used while its file is
 * there and its folder's modification time is what it was (a rebuild or reinstall changes it); anything else
 * searches again. Kept in the command's code cache file, whose name carries the Node version (the addons' ABI).
 */
export class LocatedFiles {
  private readonly kept: Map<string, Kept>;
  private readonly buildChosen: boolean;
  private changed = false;

  constructor(stored: Buffer | undefined, env: NodeJS.ProcessEnv = process.env) {
    this.kept = parseKept(stored);
    this.buildChosen = Object.keys(env).some((name) => CHOOSES_BUILD.test(name));
  }

  file(key: string, locate: () => Location): string {
    if (this.buildChosen) return locate().file;
    const kept = this.kept.get(key);
    if (kept !== undefined && mtimeOf(kept.dir) === kept.dirMtimeMs && isFile(kept.file)) return kept.file;
    const found = locate();
    const dirMtimeMs = mtimeOf(found.dir);
    if (dirMtimeMs !== undefined) {
      this.kept.set(key, { file: found.file, dir: found.dir, dirMtimeMs });
      this.changed = true;
    }
    return found.file;
  }

  /** True once a search found something not yet written down. */
  get unsaved(): boolean {
    return this.changed;
  }

  serialize(): Buffer {
    this.changed = false;
    return Buffer.from(JSON.stringify(Object.fromEntries(this.kept)));
  }
}

function mtimeOf(path: string): number | undefined {
  return statSync(path, { throwIfNoEntry: false })?.mtimeMs;
}

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
}

function parseKept(stored: Buffer | undefined): Map<string, Kept> {
  if (stored === undefined) return new Map();
  try {
    const value: unknown = JSON.parse(stored.toString());
    if (typeof value !== 'object' || value === null) return new Map();
    return new Map(Object.entries(value).filter((entry): entry is [string, Kept] => isKept(entry[1])));
  } catch {
    return new Map();
  }
}

function isKept(value: unknown): value is Kept {
  const kept = value as Partial<Kept> | null;
  return typeof kept === 'object' && kept !== null && typeof kept.file === 'string' && typeof kept.dir === 'string' && typeof kept.dirMtimeMs === 'number';
}
