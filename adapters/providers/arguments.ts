/**
 * Tool arguments arrive as JSON text. Anything that is not a JSON object is kept as `{ _raw: text }` so the
 * tool's own validation can tell the model what was wrong instead of the call vanishing.
 */
export function parseArguments(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    if (isRecord(value)) return value;
  } catch {
    // Falls through to the raw form below.
  }
  return { _raw: text };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
