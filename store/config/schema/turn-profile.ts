import { z } from 'zod';
import { bool, textList } from './fields.js';

const customOnlyFor = 'mode custom is supported only for skills and tools (allowed: default, off)';

/** `custom` exists only where an allow list makes sense: skills and tools. */
function fixedMode() {
  return z.object({
    mode: z
      .enum(['default', 'off'], {
        error: (issue) =>
          issue.input === 'custom' ? customOnlyFor : `${JSON.stringify(issue.input)} is not allowed (allowed: default, off)`,
      })
      .default('default'),
  });
}

function customisableMode() {
  return z.object({
    mode: z
      .enum(['default', 'off', 'custom'], {
        error: (issue) => `${JSON.stringify(issue.input)} is not allowed (allowed: default, off, custom)`,
      })
      .default('default'),
    custom: z.object({ allow: textList().default([]) }).optional(),
    /** The peer runtime's sample writes the allow list directly under the block. */
    allow: textList().optional(),
  });
}

export const turnProfileSchema = z.object({
  enabled: bool().default(false),
  history: fixedMode().prefault({}),
  system_prompt: fixedMode().prefault({}),
  skills: customisableMode().prefault({}),
  tools: customisableMode().prefault({}),
});
