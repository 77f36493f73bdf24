import { z } from 'zod';
import { bool, int, list, nonEmptyText, sessionDimensions, text } from './fields.js';
import { turnProfileSchema } from './turn-profile.js';

export const loopDetectionSchema = z
  .object({
    enabled: bool().default(false),
    repeat_threshold: int(2).default(3),
    critical_threshold: int(2).default(6),
    window_size: int(1).default(20),
  })
  .superRefine((loop, ctx) => {
    if (loop.critical_threshold <= loop.repeat_threshold) {
      ctx.addIssue({
        code: 'custom',
        path: ['critical_threshold'],
        message: `${loop.critical_threshold} must be above repeat_threshold (allowed: whole numbers from ${loop.repeat_threshold + 1})`,
      });
    }
    if (loop.window_size < loop.critical_threshold) {
      ctx.addIssue({
        code: 'custom',
        path: ['window_size'],
        message: `${loop.window_size} does not cover critical_threshold (allowed: whole numbers from ${loop.critical_threshold})`,
      });
    }
  });

export const agentDefaultsSchema = z.object({
  /** Unset means `<AGENT_HOME>/workspace`; the loader fills it in. */
  workspace: text().optional(),
  restrict_to_workspace: bool().default(true),
  model: text().optional(),
  /** A `model_name` whose entry transcribes voice messages before the turn (`audio/transcriptions`). */
  transcription_model: text().optional(),
  /** A `model_name` whose entry draws images for the `image_generate` tool (`images/generations`). */
  image_model: text().optional(),
  max_tool_iterations: int(1, 1000).default(20),
  turn_profile: turnProfileSchema.optional(),
  loop_detection: loopDetectionSchema.prefault({}),
});

export const agentEntrySchema = z.looseObject({
  id: nonEmptyText(),
  default: bool().optional(),
  name: text().optional(),
  model: text().optional(),
  workspace: text().optional(),
});

export const dispatchWhenSchema = z.object({
  channel: text().optional(),
  account: text().optional(),
  space: text().optional(),
  chat: text().optional(),
  topic: text().optional(),
  sender: text().optional(),
  mentioned: bool().optional(),
});

export const dispatchRuleSchema = z.object({
  name: nonEmptyText(),
  agent: nonEmptyText(),
  when: dispatchWhenSchema.prefault({}),
  session_dimensions: sessionDimensions().optional(),
});

export const agentsSchema = z.object({
  defaults: agentDefaultsSchema.prefault({}),
  list: list(agentEntrySchema).default([]),
  dispatch: z.object({ rules: list(dispatchRuleSchema).default([]) }).prefault({}),
});
