import * as z from 'zod/mini';
import { bool, text } from './fields.js';
import { optional, withDefault } from './shared.js';

/**
 * The peer runtime's `voice` block. `model_name` transcribes voice messages (read as
 * `agents.defaults.transcription_model` when that is unset); `tts_model_name` names the model_list entry whose
 * OpenAI-style `/audio/speech` the `send_tts` tool speaks with (unset: the first entry whose model has "tts" in it).
 */
export const voiceSchema = z.object({
  model_name: optional(text()),
  tts_model_name: optional(text()),
  /** Each transcript is also sent to the chat (`Transcript: …`) before the answer. */
  echo_transcription: withDefault(bool(), false),
});
