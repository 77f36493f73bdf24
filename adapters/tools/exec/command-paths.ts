import { allCommands, commandPositions, REDIRECTS } from './shell-words.js';

/** Device files that are plumbing, not places: writing to them touches nothing of the user's. */
const HARMLESS_DEVICES = /^\/dev\/(null|zero|stdin|stdout|stderr|tty|random|urandom|fd\/\d+)$/;
const SYSTEM_PROGRAMS = /^\/(usr\/(local\/)?)?s?bin\/[^/]+$/;
const URL = /^[a-z][a-z0-9+.-]*:\/\//i;

export interface PathContext {
  cwd: string;
  userHome: string;
}

/** `$HOME`, `${HOME}`, `$PWD` and `~` expand; any other variable in a path is unknown and therefore suspect. */
function expand(word: string, context: PathContext): string | undefined {
  const expanded = word
    .replace(/^~(?=\/|$)/, context.userHome)
    .replace(/^\$\{?HOME\}?(?=\/|$)/, context.userHome)
    .replace(/^\$\{?PWD\}?(?=\/|$)/, context.cwd);
  return expanded.includes('$') ? undefined : expanded;
}

function valueOf(word: string): string {
  const assignment = /^(--?[\w-]+=|[a-z]+=)(.*)$/i.exec(word);
  return assignment ? assignment[2]! : word;
}

function looksLikePath(word: string): boolean {
  return word.includes('/') || word === '..' || word === '~' || word.startsWith('~/');
}

/**
 * Words of a command line that name a file system location, as they would be passed to the
 * program; `undefined` stands for a location that cannot be known before running (an unknown variable).
 */
export function commandPaths(commandLine: string, context: PathContext): (string | undefined)[] {
  return allCommands(commandLine).flatMap((words) => {
    const programs = new Set(commandPositions(words));
    return words.flatMap((word, i) => {
      if (REDIRECTS.has(word)) return [];
      const value = valueOf(word);
      if (!looksLikePath(value) || URL.test(value) || HARMLESS_DEVICES.test(value)) return [];
      if (programs.has(i) && SYSTEM_PROGRAMS.test(value)) return [];
      return [expand(value, context)];
    });
  });
}
