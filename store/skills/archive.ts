import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Entry, ZipFile } from 'yauzl';

type Yauzl = typeof import('yauzl');
/** yauzl is loaded with the first archive: the runs that unpack none (every turn) do not parse it. */
const loadYauzl = async (): Promise<Yauzl> => (await import('yauzl')).default;

export interface ArchiveLimits {
  /** Files (folders not counted) a skill may unpack to. */
  maxFiles: number;
  /** Bytes all its files may unpack to together. */
  maxUnpackedBytes: number;
}

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = { maxFiles: 1000, maxUnpackedBytes: 100 * 1024 * 1024 };

export type ArchiveRefusal =
  | 'unsafe_path'
  | 'symlink'
  | 'special_file'
  | 'encrypted'
  | 'too_many_files'
  | 'too_large_unpacked'
  | 'not_a_zip'
  | 'missing_skill_md';

/** An archive that is refused; nothing of it has been written outside the staging folder. */
export class SkillArchiveError extends Error {
  constructor(
    readonly code: ArchiveRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'SkillArchiveError';
  }
}

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;

type Kind = 'file' | 'folder';

interface Planned {
  entry: Entry;
  name: string;
  kind: Kind;
}

/** The entry's name as its header gives it (UTF-8 flag, Info-ZIP unicode path, else CP437), unvalidated. */
function nameOf(yauzl: Yauzl, entry: Entry): string {
  return yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true);
}

/** Names that could land outside the folder they are unpacked into are refused outright, wherever they are. */
function checkName(name: string): void {
  const refuse = (why: string): never => {
    throw new SkillArchiveError('unsafe_path', `the archive entry ${JSON.stringify(name)} ${why}`);
  };
  if (name === '' || name.includes('\0')) refuse('has an empty name or a NUL character');
  if (name.includes('\\')) refuse('contains a backslash (zip names use /)');
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) refuse('is an absolute path');
  if (name.split('/').includes('..')) refuse('climbs out of its folder with ..');
}

function kindOf(entry: Entry, name: string): Kind {
  const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
  // Unix-made archives carry the file type in the high bits; others (mode 0) only say a folder by its trailing slash.
  if (mode === S_IFLNK)
    throw new SkillArchiveError(
      'symlink',
      `the archive entry ${JSON.stringify(name)} is a symbolic link (links are never unpacked)`,
    );
  if (mode !== 0 && mode !== S_IFDIR && mode !== S_IFREG) {
    throw new SkillArchiveError(
      'special_file',
      `the archive entry ${JSON.stringify(name)} is a device, pipe or socket (only files and folders are unpacked)`,
    );
  }
  if (entry.isEncrypted())
    throw new SkillArchiveError('encrypted', `the archive entry ${JSON.stringify(name)} is encrypted`);
  return mode === S_IFDIR || name.endsWith('/') ? 'folder' : 'file';
}

function megabytes(bytes: number): string {
  return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;
}

async function openZip(path: string): Promise<ZipFile> {
  const yauzl = await loadYauzl();
  try {
    return await yauzl.openPromise(path, {
      lazyEntries: true,
      decodeStrings: false,
      validateEntrySizes: true,
      autoClose: false,
    });
  } catch (error) {
    throw new SkillArchiveError('not_a_zip', `the download is not a zip archive (${(error as Error).message})`);
  }
}

/**
 * The skill's entries: every name checked, then those under `within` (a folder inside the archive, for a skill
 * in a subfolder of a repository) with the archive's single top folder cut off when `SKILL.md` is not at the top.
 */
async function plan(zip: ZipFile, within: string, limits: ArchiveLimits): Promise<Planned[]> {
  const yauzl = await loadYauzl();
  const all: Array<{ entry: Entry; name: string }> = [];
  try {
    for await (const entry of zip.eachEntry()) {
      const name = nameOf(yauzl, entry);
      checkName(name);
      all.push({ entry, name });
    }
  } catch (error) {
    if (error instanceof SkillArchiveError) throw error;
    throw new SkillArchiveError('not_a_zip', `the archive cannot be read (${(error as Error).message})`);
  }
  const top = all[0]?.name.split('/')[0] ?? '';
  const oneTopFolder =
    all.every(({ name }) => name.startsWith(`${top}/`)) && !all.some(({ name }) => name === 'SKILL.md');
  const base = [oneTopFolder ? top : '', within.replace(/^\/+|\/+$/g, '')].filter(Boolean).join('/');
  const prefix = base === '' ? '' : `${base}/`;
  const planned: Planned[] = [];
  let files = 0;
  let bytes = 0;
  for (const { entry, name } of all) {
    if (!name.startsWith(prefix) || name === prefix) continue;
    const kind = kindOf(entry, name);
    const relative = name.slice(prefix.length).replace(/\/+$/, '');
    if (kind === 'file') {
      files += 1;
      bytes += entry.uncompressedSize;
      if (files > limits.maxFiles)
        throw new SkillArchiveError('too_many_files', `the skill unpacks to more than ${limits.maxFiles} files`);
      if (bytes > limits.maxUnpackedBytes) {
        throw new SkillArchiveError(
          'too_large_unpacked',
          `the skill unpacks to more than ${megabytes(limits.maxUnpackedBytes)} ` +
            `(an archive that small is a zip bomb or not a skill)`,
        );
      }
    }
    planned.push({ entry, name: relative, kind });
  }
  if (!planned.some((p) => p.kind === 'file' && p.name === 'SKILL.md')) {
    throw new SkillArchiveError(
      'missing_skill_md',
      `the archive has no SKILL.md${prefix ? ` in ${prefix}` : ' at its top'}`,
    );
  }
  return planned;
}

/** Counts what really comes out of an entry: a header may lie about its size. */
function byteBudget(limits: ArchiveLimits, used: { bytes: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      used.bytes += chunk.length;
      if (used.bytes > limits.maxUnpackedBytes) {
        done(
          new SkillArchiveError(
            'too_large_unpacked',
            `the skill unpacks to more than ${megabytes(limits.maxUnpackedBytes)}`,
          ),
        );
        return;
      }
      done(null, chunk);
    },
  });
}

function inside(dest: string, name: string): string {
  const target = resolve(dest, name);
  if (!target.startsWith(dest + sep))
    throw new SkillArchiveError(
      'unsafe_path',
      `the archive entry ${JSON.stringify(name)} would land outside the skill folder`,
    );
  return target;
}

/**
 * Unpacks the skill in the zip at `zipPath` into `dest` (a new, empty folder): each entry's name, type and size
 * is checked before anything is written, so absolute paths, `..`, links, devices, too many files and too many
 * bytes are refused with a `SkillArchiveError`. Files are created, never opened over something existing.
 */
export async function unpackSkillArchive(
  zipPath: string,
  dest: string,
  options: { within?: string; limits?: ArchiveLimits } = {},
): Promise<void> {
  const limits = options.limits ?? DEFAULT_ARCHIVE_LIMITS;
  const root = resolve(dest);
  mkdirSync(root, { recursive: true });
  const zip = await openZip(zipPath);
  try {
    const planned = await plan(zip, options.within ?? '', limits);
    const used = { bytes: 0 };
    for (const { entry, name, kind } of planned) {
      const target = inside(root, name);
      if (kind === 'folder') {
        mkdirSync(target, { recursive: true });
        continue;
      }
      mkdirSync(dirname(target), { recursive: true });
      const executable = ((entry.externalFileAttributes >>> 16) & 0o111) !== 0;
      try {
        const stream = await zip.openReadStreamPromise(entry);
        await pipeline(
          stream,
          byteBudget(limits, used),
          createWriteStream(target, { flags: 'wx', mode: executable ? 0o755 : 0o644 }),
        );
      } catch (error) {
        if (error instanceof SkillArchiveError) throw error;
        const code = (error as NodeJS.ErrnoException).code;
        const why = code === 'EEXIST' ? 'appears twice' : `cannot be unpacked (${(error as Error).message})`;
        throw new SkillArchiveError(
          code === 'EEXIST' ? 'unsafe_path' : 'not_a_zip',
          `the archive entry ${JSON.stringify(name)} ${why}`,
        );
      }
    }
  } finally {
    zip.close();
  }
}
