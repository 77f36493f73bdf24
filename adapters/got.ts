/**
 * got, loaded on the first outbound request: it costs ~20 MB of memory and tens of milliseconds to load,
 * which an idle gateway or a command that never calls out should not pay.
 */
export type GotModule = typeof import('got');

let loading: Promise<GotModule> | undefined;

export function loadGot(): Promise<GotModule> {
  loading ??= import('got');
  return loading;
}
