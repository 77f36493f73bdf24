import type { Writable } from 'node:stream';
import type { RegistryType } from '../../store/config/schema/tools/skills.js';
import type { Downloaded } from './http.js';

/** One search result as a registry gave it (the peer runtime's fields). */
export interface SearchHit {
  registry: string;
  slug: string;
  display_name: string;
  summary: string;
  version: string;
  score: number;
}

/** What a registry says about a skill before it is downloaded. */
export interface SkillMeta {
  registry: string;
  slug: string;
  display_name: string;
  summary: string;
  latest_version?: string;
  malware_blocked: boolean;
  suspicious: boolean;
}

/** Where a skill's archive is and which part of it is the skill. */
export interface ArchiveSource {
  url: string;
  version: string;
  /** A folder inside the archive that holds the skill; empty: the archive's top. */
  within: string;
  /** The folder the skill is installed as. */
  folder: string;
}

export interface SkillRegistry {
  readonly name: string;
  readonly kind: RegistryType;
  /** The most an archive from it may weigh. */
  readonly maxZipBytes: number;
  search(query: string, limit: number, signal?: AbortSignal): Promise<SearchHit[]>;
  meta(slug: string, signal?: AbortSignal): Promise<SkillMeta>;
  source(meta: SkillMeta, version: string | undefined): ArchiveSource;
  download(source: ArchiveSource, sink: Writable, signal?: AbortSignal): Promise<Downloaded>;
}

export type SkillInstallErrorCode =
  | 'registry_unknown'
  | 'registry_failed'
  | 'slug_invalid'
  | 'malware_blocked'
  | 'suspicious'
  | 'already_installed'
  | 'archive_refused'
  | 'skill_invalid'
  | 'not_installed';

/** An install, upgrade or removal that did not happen; the message says why and what to do. */
export class SkillInstallError extends Error {
  constructor(
    readonly code: SkillInstallErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SkillInstallError';
  }
}
