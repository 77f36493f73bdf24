import * as z from 'zod/mini';
import { bool, oneOf, textList } from './fields.js';
import { withDefault } from './shared.js';

export const EVENT_SEVERITIES = ['debug', 'info', 'warn', 'error'] as const;

/**
 * The peer runtime's event-stream logging (`events.logging`, its field names): chosen bus events as lines in
 * `gateway.log`, each at its severity (docs/configuration.md maps Tern's event types). The event log keeps every
 * event whatever this says.
 */
export const eventsSchema = z.object({
  logging: z.prefault(
    z.object({
      /** Whether chosen events are written to `gateway.log`; off unless written (the tool-call lines cover a turn). */
      enabled: withDefault(bool(), false),
      /** Event types or globs (`turn.*`, `*.failed`, `*`); `agent.*` is the agent loop's events. Empty: `agent.*`. */
      include: withDefault(textList(), ['agent.*']),
      /** Types or globs left out of what `include` chose. */
      exclude: withDefault(textList(), []),
      /** Events below this severity are not written. */
      min_severity: withDefault(oneOf(EVENT_SEVERITIES), 'info'),
      /** Adds the event's data as JSON (secrets masked); off, a line names only the event and its keys. */
      include_payload: withDefault(bool(), false),
    }),
    {},
  ),
});
