import { isSecret } from '../../store/config/index.js';

/** Every secret value in a config tree, so the output filter can mask it wherever a tool prints it. */
export function secretValues(value: unknown, found: string[] = []): string[] {
  if (isSecret(value)) {
    if (!value.isEmpty) found.push(value.reveal());
  } else if (Array.isArray(value)) {
    value.forEach((item) => secretValues(item, found));
  } else if (value && typeof value === 'object') {
    Object.values(value).forEach((item) => secretValues(item, found));
  }
  return found;
}
