import * as z from 'zod/mini';
import { sessionDimensions } from './fields.js';
import { withDefault } from './shared.js';

export const sessionSchema = z.object({
  /** Global default of session scope; a dispatch rule's `session_dimensions` overrides it. */
  dimensions: withDefault(sessionDimensions(), ['chat']),
});
