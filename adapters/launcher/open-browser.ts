import { spawn } from 'node:child_process';

function opener(platform: NodeJS.Platform): [string, string[]] {
  if (platform === 'darwin') return ['open', []];
  if (platform === 'win32') return ['cmd', ['/c', 'start', '""']];
  return ['xdg-open', []];
}

/** Best effort: a machine without a desktop simply has no browser to open, and the URL is printed anyway. */
export function openBrowser(url: string, platform = process.platform): void {
  const [command, args] = opener(platform);
  const child = spawn(command, [...args, url], { detached: true, stdio: 'ignore' });
  child.on('error', () => {});
  child.unref();
}
