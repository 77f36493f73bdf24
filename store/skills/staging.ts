import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { unpackSkillArchive, type ArchiveLimits } from './archive.js';
import { writeOrigin, type SkillOrigin } from './origin.js';
import { strictHeader, type SkillHeader } from './skill-file.js';

/** A skill's folder name: what `tern skills remove` takes and what the install writes. */
const FOLDER = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export class SkillFolderError extends Error {
  readonly code = 'skill_folder_invalid';
  constructor(message: string) {
    super(message);
    this.name = 'SkillFolderError';
  }
}

export function checkFolderName(folder: string): string {
  if (!FOLDER.test(folder))
    throw new SkillFolderError(
      `"${folder}" cannot name a skill folder (allowed: letters, digits, . _ -, starting with a letter or digit)`,
    );
  return folder;
}

export interface Committed {
  path: string;
  /** A skill of that folder was there before and has been replaced. */
  replaced: boolean;
  /** Where the replaced skill was kept, when a backup was asked for. */
  backup?: string;
}

function stamp(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}

/**
 * One install or write of a skill, staged in a dot-folder inside the skill root (the catalog skips dot-folders), so
 * the download, the unpacked files and the swap all stay inside the root and on its file system. `commit` renames
 * the finished folder into place; `discard` removes the stage, whatever happened.
 */
export class SkillStaging {
  private constructor(
    readonly root: string,
    readonly dir: string,
  ) {}

  static open(root: string): SkillStaging {
    mkdirSync(root, { recursive: true });
    return new SkillStaging(root, mkdtempSync(join(root, '.staging-')));
  }

  get archivePath(): string {
    return join(this.dir, 'download.zip');
  }

  private get skillDir(): string {
    return join(this.dir, 'skill');
  }

  /** Where a download is streamed to. */
  archiveStream(): Writable {
    return createWriteStream(this.archivePath, { flags: 'wx', mode: 0o600 });
  }

  /** Unpacks the downloaded archive and checks its SKILL.md (frontmatter `name` and `description`). */
  async unpack(options: { within?: string; limits?: ArchiveLimits } = {}): Promise<SkillHeader> {
    await unpackSkillArchive(this.archivePath, this.skillDir, options);
    rmSync(this.archivePath, { force: true });
    return strictHeader(readFileSync(join(this.skillDir, 'SKILL.md'), 'utf8'));
  }

  /** A skill given as the text of its SKILL.md (a drafted skill), checked like a downloaded one. */
  writeSkillText(text: string): SkillHeader {
    const header = strictHeader(text);
    mkdirSync(this.skillDir, { recursive: true });
    writeFileSync(join(this.skillDir, 'SKILL.md'), text, { mode: 0o644 });
    return header;
  }

  /**
   * Renames the staged skill into `<root>/<folder>`. A skill already there is moved aside first and removed after,
   * or kept in `backupDir` as `<folder>-<time>` when given; if the rename fails, it is put back.
   */
  commit(folder: string, options: { origin?: SkillOrigin; backupDir?: string; now?: Date } = {}): Committed {
    checkFolderName(folder);
    if (options.origin) writeOrigin(this.skillDir, options.origin);
    const target = join(this.root, folder);
    const replaced = existsSync(target);
    const aside = join(this.dir, 'previous');
    if (replaced) renameSync(target, aside);
    try {
      renameSync(this.skillDir, target);
    } catch (error) {
      if (replaced) renameSync(aside, target);
      throw error;
    }
    if (!replaced || !options.backupDir) return { path: target, replaced };
    mkdirSync(options.backupDir, { recursive: true });
    const backup = join(options.backupDir, `${folder}-${stamp(options.now ?? new Date())}`);
    renameSync(aside, backup);
    return { path: target, replaced, backup };
  }

  discard(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
