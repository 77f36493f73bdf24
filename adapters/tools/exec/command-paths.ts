import { join } from 'node:path';
import { allCommands, basename, commandPositions, inlineCode, REDIRECTS, type SimpleCommand } from './shell-words.js';

/** Device files that are plumbing, not places: writing to them touches nothing of the user's. */
const HARMLESS_DEVICES = /^\/dev\/(null|zero|stdin|stdout|stderr|tty|random|urandom|fd\/\d+)$/;
const SYSTEM_PROGRAMS = /^\/(usr\/(local\/)?)?s?bin\/[^/]+$/;
const URL = /^[a-z][a-z0-9+.-]*:\/\//i;

export interface PathContext {
  cwd: string;
  userHome: string;
}

/**
 * A location a command line names, as the program would get it:
 * - `path`: a word that is a path (it has a `/`, or is `~` or `..`), relative to `cwd`;
 * - `name`: a plain word that is a location only if an entry of that name exists in `cwd` (a link there
 *   leads wherever it points: `cat link-out`);
 * - `unknown`: a path that cannot be known before running (an unknown variable, a substitution).
 */
export type NamedLocation =
  | { kind: 'path'; path: string; cwd: string }
  | { kind: 'name'; name: string; cwd: string }
  | { kind: 'unknown' };

/**
 * `$HOME`, `${HOME}`, `$PWD` and `~` expand; any other variable in a path is unknown and therefore suspect.
 * `expands` false: the word's `$`s are literal text (`'out/$@'`).
 */
function expand(word: string, context: PathContext, expands: boolean): string | undefined {
  const home = word.replace(/^~(?=\/|$)/, context.userHome);
  if (!expands) return home;
  const expanded = home.replace(/^\$\{?HOME\}?(?=\/|$)/, context.userHome).replace(/^\$\{?PWD\}?(?=\/|$)/, context.cwd);
  return expanded.includes('$') ? undefined : expanded;
}

function wordValue(word: string): string {
  const assignment = /^(--?[\w-]+=|[a-z]+=)(.*)$/i.exec(word);
  return assignment ? assignment[2]! : word;
}

function looksLikePath(word: string): boolean {
  return word.includes('/') || word === '..' || word === '~' || word.startsWith('~/');
}

function locationOf(word: string, context: PathContext, expands = true): NamedLocation | undefined {
  const value = wordValue(word);
  if (value === '' || value.startsWith('-') || URL.test(value) || HARMLESS_DEVICES.test(value)) return undefined;
  if (!looksLikePath(value)) {
    return expands && value.includes('$') ? undefined : { kind: 'name', name: value, cwd: context.cwd };
  }
  const path = expand(value, context, expands);
  return path === undefined ? { kind: 'unknown' } : { kind: 'path', path, cwd: context.cwd };
}

/**
 * `cd` moves the commands after it: `cd rootlink && ./x.sh` runs `x.sh` where the link points. A bare `cd`
 * (or `cd ~`) goes to the home directory, `cd -` to wherever the shell was before.
 */
function afterCd(words: string[], context: PathContext): { location: NamedLocation; cwd: string } {
  const target = words.slice(1).find((w) => !w.startsWith('-') || w === '-');
  if (target === undefined)
    return { location: { kind: 'path', path: context.userHome, cwd: context.cwd }, cwd: context.userHome };
  if (target === '-') return { location: { kind: 'unknown' }, cwd: context.cwd };
  const location = locationOf(target, context) ?? { kind: 'unknown' };
  if (location.kind === 'path') return { location, cwd: join(context.cwd, location.path) };
  if (location.kind === 'name') return { location, cwd: join(context.cwd, location.name) };
  return { location, cwd: context.cwd };
}

/** A simple command of a line with the folder it runs in: undefined once a `cd` went somewhere unknown. */
export interface PlacedCommand {
  command: SimpleCommand;
  cwd: string | undefined;
  /** Where the `cd` this command is went (a `cd` only). */
  moved?: NamedLocation;
}

/** The line's simple commands in the order they run, each with the folder it runs in (`cd` moves the rest). */
export function placedCommands(
  commandLine: string,
  context: PathContext,
  commands = allCommands(commandLine),
): PlacedCommand[] {
  let cwd: string | undefined = context.cwd;
  return commands.map((command) => {
    const here = cwd;
    if (basename(command.words[0] ?? '') !== 'cd' || here === undefined) return { command, cwd: here };
    const moved = afterCd(command.words, { ...context, cwd: here });
    cwd = moved.location.kind === 'unknown' ? undefined : moved.cwd;
    return { command, cwd: here, moved: moved.location };
  });
}

/** Every location a command line names, in the order the commands run, each against the folder it runs in. */
export function commandPaths(
  commandLine: string,
  context: PathContext,
  commands = allCommands(commandLine),
): NamedLocation[] {
  return placedCommands(commandLine, context, commands).flatMap(({ command: { words, expands }, cwd, moved }) => {
    if (moved) return [moved];
    if (cwd === undefined) return [{ kind: 'unknown' as const }];
    const here = { ...context, cwd };
    const programs = new Set(commandPositions(words));
    const code = inlineCode(words);
    return words.flatMap((word, i) => {
      if (REDIRECTS.has(word) || code.has(i)) return [];
      if (programs.has(i) && (SYSTEM_PROGRAMS.test(word) || !looksLikePath(word))) return [];
      const location = locationOf(word, here, expands[i] ?? true);
      return location ? [location] : [];
    });
  });
}
