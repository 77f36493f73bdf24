import { extname } from 'node:path';
import type { ToolMedia } from '../tool.js';

const TYPES: Record<string, { kind: ToolMedia['kind']; mime: string }> = {
  '.png': { kind: 'image', mime: 'image/png' },
  '.jpg': { kind: 'image', mime: 'image/jpeg' },
  '.jpeg': { kind: 'image', mime: 'image/jpeg' },
  '.gif': { kind: 'image', mime: 'image/gif' },
  '.webp': { kind: 'image', mime: 'image/webp' },
  '.mp3': { kind: 'audio', mime: 'audio/mpeg' },
  '.ogg': { kind: 'audio', mime: 'audio/ogg' },
  '.wav': { kind: 'audio', mime: 'audio/wav' },
  '.m4a': { kind: 'audio', mime: 'audio/mp4' },
  '.mp4': { kind: 'video', mime: 'video/mp4' },
  '.webm': { kind: 'video', mime: 'video/webm' },
  '.mov': { kind: 'video', mime: 'video/quicktime' },
  '.pdf': { kind: 'file', mime: 'application/pdf' },
  '.txt': { kind: 'file', mime: 'text/plain' },
  '.md': { kind: 'file', mime: 'text/markdown' },
  '.csv': { kind: 'file', mime: 'text/csv' },
  '.json': { kind: 'file', mime: 'application/json' },
  '.zip': { kind: 'file', mime: 'application/zip' },
};

/** What a local file is, by its extension; unknown types travel as plain files. */
export function mediaOf(path: string): ToolMedia {
  const type = TYPES[extname(path).toLowerCase()];
  return type ? { kind: type.kind, path, mime: type.mime } : { kind: 'file', path };
}
