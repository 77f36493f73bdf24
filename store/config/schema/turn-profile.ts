import * as z from 'zod/mini';
import { bool, textList } from './fields.js';
import { optional, withDefault } from './shared.js';

const customOnlyFor = 'mode custom is supported only for skills and tools (allowed: default, off)';

/** `custom` exists only where an allow list makes sense: skills and tools. */
const fixedMode = z.prefault(
  z.object({
    mode: withDefault(
      z.enum(['default', 'off'], {
        error: (issue) =>
          issue.input === 'custom'
            ? customOnlyFor
            : `${JSON.stringify(issue.input)} is not allowed (allowed: default, off)`,
      }),
      'default',
    ),
  }),
  {},
);

const customisableMode = z.prefault(
  z.object({
    mode: withDefault(
      z.enum(['default', 'off', 'custom'], {
        error: (issue) => `${JSON.stringify(issue.input)} is not allowed (allowed: default, off, custom)`,
      }),
      'default',
    ),
    custom: optional(z.object({ allow: withDefault(textList(), []) })),
    /** The peer runtime's sample writes the allow list directly under the block. */
    allow: optional(textList()),
  }),
  {},
);

export const turnProfileSchema = z.object({
  enabled: withDefault(bool(), false),
  history: fixedMode,
  system_prompt: fixedMode,
  skills: customisableMode,
  tools: customisableMode,
});
