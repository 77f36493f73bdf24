import type { StateValue } from 'xstate';

/** A state value as a person reads it: `showing.message_updated`. */
export function stateName(value: StateValue): string {
  if (typeof value === 'string') return value;
  return Object.entries(value)
    .map(([key, child]) =>
      child && (typeof child === 'string' || Object.keys(child).length) ? `${key}.${stateName(child)}` : key,
    )
    .join(',');
}
