import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';

export const dataEvents = {
  /**
   * Everything a sender said was removed at their request (`tern log forget --sender ID`): projections that hold
   * their words (recall's index) drop them when they see this. It keeps who was forgotten, never what they said.
   */
  'data.forgotten': lazySchema(() => z.object({ sender: z.string(), channel: z.string().optional(), events: z.number().int().nonnegative().optional() })),
} as const;
