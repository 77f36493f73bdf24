import { sendForBytes } from '../http/client.js';
import { classifyFailure } from './classify.js';
import { ProviderError } from './errors.js';
import { mediaEndpoint, taggedMedia } from './media-endpoint.js';
import type { ModelEntry } from './model-entry.js';
import type { CallOptions } from './provider.js';

export interface Speech {
  bytes: Buffer;
  mime: string;
  /** The file extension its format has (`ogg` for Opus, which platforms play as a voice message). */
  extension: string;
}

/** What each `response_format` is as a file; others (opus, the default) are Ogg. */
const FORMATS: Record<string, { mime: string; extension: string }> = {
  mp3: { mime: 'audio/mpeg', extension: 'mp3' },
  wav: { mime: 'audio/wav', extension: 'wav' },
};

/**
 * Text to speech through `{base}/audio/speech` (OpenAI's shape): `voice` and `response_format` come from the entry's
 * `extra_body` (defaults `alloy` and `opus`, as the peer runtime's), and the answer is the audio's bytes.
 */
export async function synthesizeSpeech(
  input: ModelEntry,
  text: string,
  options: Pick<CallOptions, 'signal'> = {},
): Promise<Speech> {
  const { entry, headers } = mediaEndpoint(input, 'speech');
  const { voice = 'alloy', response_format: format = 'opus', ...extra } = entry.extraBody ?? {};
  const body = JSON.stringify({ model: entry.model, input: text, voice, response_format: format, ...extra });
  const answer = await taggedMedia(
    entry,
    sendForBytes(entry.route, {
      url: `${entry.apiBase}/audio/speech`,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      ...(options.signal ? { signal: options.signal } : {}),
      firstByteTimeoutMs: entry.firstByteTimeoutMs,
    }).catch((error: Error) => {
      throw new ProviderError({ code: 'network', message: error.message });
    }),
  );
  if (answer.status >= 300)
    throw classifyFailure(answer.status, answer.bytes.toString('utf8'), answer.headers['retry-after']);
  if (answer.bytes.length === 0) throw new ProviderError({ code: 'unknown', message: 'the speech answer is empty' });
  return { bytes: answer.bytes, ...(FORMATS[String(format)] ?? { mime: 'audio/ogg', extension: 'ogg' }) };
}
