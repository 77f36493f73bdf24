import type { Subscription } from 'rxjs';
import type { Bus, Envelope } from '../../bus/index.js';
import { typeMatcher } from '../../bus/type-glob.js';
import type { Config } from '../../store/config/index.js';
import type { Logger } from '../../store/logs/logger.js';
import { kindsOf, SEVERITY_RANK, severityOf } from './event-severity.js';

type EventLogging = Config['events']['logging'];

/** One matcher per pattern list, remade only when a reload changes the list. */
function matcherOf(): (patterns: string[]) => (kind: string) => boolean {
  let last: { key: string; match: (kind: string) => boolean } | undefined;
  return (patterns) => {
    const key = JSON.stringify(patterns);
    if (last?.key !== key) {
      const each = patterns.filter((p) => p.trim() !== '').map(typeMatcher);
      last = { key, match: (kind) => each.some((m) => m(kind)) };
    }
    return last.match;
  };
}

/**
 * The peer's `events.logging`: each bus event its `include` chooses, its `exclude` does not and whose severity is at
 * least `min_severity` becomes a `gateway.log` line at that severity. The setting is read per event, so a config
 * reload applies to the next one.
 */
export function logEvents(bus: Bus, settings: () => EventLogging, logger: Logger): Subscription {
  const included = matcherOf();
  const excluded = matcherOf();
  return bus.events$.subscribe((e: Envelope) => {
    const s = settings();
    if (!s.enabled) return;
    const severity = severityOf(e);
    if (SEVERITY_RANK[severity] < SEVERITY_RANK[s.min_severity]) return;
    const kinds = kindsOf(e.type);
    const include = included(s.include.length > 0 ? s.include : ['agent.*']);
    if (!kinds.some(include)) return;
    const exclude = excluded(s.exclude);
    if (s.exclude.length > 0 && kinds.some(exclude)) return;
    logger.log(severity, `runtime event: ${e.type}`, {
      event_id: e.seq,
      event_kind: e.type,
      severity,
      agent_id: e.agent,
      session_key: e.session,
      turn_id: e.turn,
      parent_turn_id: e.parent,
      payload: s.include_payload ? JSON.stringify(e.data) : undefined,
    });
  });
}
