import { z } from 'zod';
import { sessionDimensions } from './fields.js';

export const sessionSchema = z.object({
  /** Global default of session scope; a dispatch rule's `session_dimensions` overrides it. */
  dimensions: sessionDimensions().default(['chat']),
});
