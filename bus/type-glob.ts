/**
 * Event type patterns as users type them: `provider.*`, `turn.started`, or a comma list of either.
 * `*` spans any characters, so `*.failed` finds every failure.
 */
export function typeMatcher(pattern: string): (type: string) => boolean {
  const alternatives = pattern
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (alternatives.length === 0) return () => true;
  const source = alternatives
    .map((p) =>
      p
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*'),
    )
    .join('|');
  const regex = new RegExp(`^(?:${source})$`);
  return (type) => regex.test(type);
}
