import * as z from 'zod';
import { ProviderError } from './errors.js';
import { getBytes, postJson } from './http.js';
import { mediaEndpoint, taggedMedia } from './media-endpoint.js';
import type { ResolvedEntry } from './resolve.js';
import type { ModelEntry } from './model-entry.js';
import type { CallOptions } from './provider.js';
import { parseWire } from './wire.js';

const imagesSchema = z.looseObject({
  data: z
    .array(
      z.looseObject({
        b64_json: z.string().optional(),
        url: z.string().optional(),
        revised_prompt: z.string().optional(),
      }),
    )
    .min(1),
});

export interface GeneratedImage {
  bytes: Buffer;
  mime: string;
  revisedPrompt?: string;
}

const signatures: Array<{ mime: string; bytes: number[] }> = [
  { mime: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47] },
  { mime: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] },
  { mime: 'image/gif', bytes: [0x47, 0x49, 0x46, 0x38] },
  { mime: 'image/webp', bytes: [0x52, 0x49, 0x46, 0x46] },
];

function sniff(bytes: Buffer, fallback: string): string {
  return signatures.find((s) => s.bytes.every((b, i) => bytes[i] === b))?.mime ?? fallback;
}

async function download(url: string, entry: ResolvedEntry, options: Pick<CallOptions, 'signal'>): Promise<Buffer> {
  if (!/^https?:\/\//.test(url))
    throw new ProviderError({ code: 'unknown', message: `image url is not http(s): ${url.slice(0, 80)}` });
  const answer = await getBytes(url, {
    signal: options.signal,
    route: entry.route,
    firstByteTimeoutMs: entry.firstByteTimeoutMs,
  });
  if (answer.status >= 300) {
    throw new ProviderError({
      code: 'network',
      status: answer.status,
      message: `downloading the generated image failed: HTTP ${answer.status}`,
    });
  }
  return answer.bytes;
}

/**
 * Text to image through `{base}/images/generations`. Returns the bytes (from `b64_json`, or downloaded from
 * `url`); writing the file is the caller's job.
 */
export async function generateImage(
  input: ModelEntry,
  prompt: string,
  options: Pick<CallOptions, 'signal'> = {},
): Promise<GeneratedImage> {
  const { entry, headers } = mediaEndpoint(input, 'image generation');
  const answer = await taggedMedia(
    entry,
    postJson({
      url: `${entry.apiBase}/images/generations`,
      headers,
      signal: options.signal,
      route: entry.route,
      firstByteTimeoutMs: entry.firstByteTimeoutMs,
      body: { model: entry.model, prompt, n: 1, ...entry.extraBody },
    }),
  );
  const image = parseWire(imagesSchema, answer, 'image generation answer').data[0]!;
  const bytes =
    image.b64_json !== undefined
      ? Buffer.from(image.b64_json, 'base64')
      : image.url !== undefined
        ? await taggedMedia(entry, download(image.url, entry, options))
        : undefined;
  if (!bytes)
    throw new ProviderError({ code: 'unknown', message: 'image generation answer has neither b64_json nor url' });
  return {
    bytes,
    mime: sniff(bytes, 'image/png'),
    ...(image.revised_prompt ? { revisedPrompt: image.revised_prompt } : {}),
  };
}
