import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ARTIFACT_DIR } from '../tools/output/artifact.js';

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'audio/wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
  'application/pdf': 'pdf',
  'application/json': 'json',
  'text/plain': 'txt',
};

/** Saves base64 content from a server next to the text artifacts; returns its workspace-relative path. */
export async function saveMediaArtifact(workspace: string, base64: string, mime: string | undefined): Promise<string> {
  const extension = (mime && EXTENSIONS[mime]) ?? 'bin';
  const relativePath = `${ARTIFACT_DIR}/${randomUUID()}.${extension}`;
  await mkdir(join(workspace, ARTIFACT_DIR), { recursive: true });
  await writeFile(join(workspace, relativePath), Buffer.from(base64, 'base64'));
  return relativePath;
}
