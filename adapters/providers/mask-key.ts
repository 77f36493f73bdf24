import { Secret } from '../../store/config/secret.js';

/** A key as every other part of Tern prints it (`sk-a…f9`): enough to tell two apart, never enough to use. */
export function maskKey(key: string): string {
  return new Secret(key).masked;
}
