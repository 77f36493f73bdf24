import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import * as z from 'zod';
import { postForm } from './http.js';
import { formValue, mediaEndpoint, taggedMedia } from './media-endpoint.js';
import type { ModelEntry } from './model-entry.js';
import type { CallOptions } from './provider.js';
import { parseWire } from './wire.js';

const transcriptionSchema = z.looseObject({ text: z.string() });

/** Speech to text through `{base}/audio/transcriptions` (multipart); `extra_body` fields go along as form fields. */
export async function transcribe(
  input: ModelEntry,
  audio: Buffer,
  filename: string,
  mime: string,
  options: Pick<CallOptions, 'signal'> = {},
): Promise<string> {
  const { entry, headers } = mediaEndpoint(input, 'transcription');
  const extra = Object.entries(entry.extraBody ?? {}).map(([name, value]) => ({ name, value: formValue(value) }));
  const answer = await taggedMedia(
    entry,
    postForm({
      url: `${entry.apiBase}/audio/transcriptions`,
      headers,
      signal: options.signal,
      route: entry.route,
      firstByteTimeoutMs: entry.firstByteTimeoutMs,
      parts: [{ name: 'file', filename, mime, data: audio }, { name: 'model', value: entry.model }, ...extra],
    }),
  );
  return parseWire(transcriptionSchema, answer, 'transcription').text;
}

/** Transcribes an audio file a channel saved (voice messages); the file is read here, at the edge. */
export async function transcribeFile(
  entry: ModelEntry,
  path: string,
  mime: string,
  options: Pick<CallOptions, 'signal'> = {},
): Promise<string> {
  return transcribe(entry, await readFile(path), basename(path), mime, options);
}
