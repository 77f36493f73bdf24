/**
 * Windows NT and device-namespace paths (`\\?\`, `\\.\`, `\??\`), UNC shares and drive paths (`C:\…`)
 * are refused before any resolution: on Windows they bypass normal path rules, and on POSIX they only
 * ever appear as an attempt to confuse the checks.
 */
const SPECIAL = [/^[\\/]{2}[?.][\\/]/, /^\\\?\?\\/, /^\\\\/, /^[a-z]:/i];

export function isWindowsSpecialPath(path: string): boolean {
  const trimmed = path.trimStart();
  return SPECIAL.some((pattern) => pattern.test(trimmed));
}
