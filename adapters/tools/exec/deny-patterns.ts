import {
  allCommands,
  basename,
  commandPositions,
  INLINE_CODE,
  INTERPRETERS,
  REDIRECTS,
  SHELLS,
  type SimpleCommand,
} from './shell-words.js';

/**
 * The built-in dangerous-command checks of the spec: bulk deletion, disk formatting, disk imaging,
 * raw device writes, shutdown and the fork bomb. They read the command as a shell would (quotes,
 * spacing, case and flag order do not matter) instead of matching raw text.
 */
const FORMATTERS = /^(format(\.com)?|mkfs(\..+)?|mke2fs|mkswap|wipefs|diskpart(\.exe)?)$/;
const SHUTDOWN = /^(shutdown|reboot|poweroff|halt)(\.exe)?$/;
const RAW_DEVICE = /^\/dev\/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|rdisk\d)/;

function shortFlags(words: string[]): string {
  return words
    .filter((w) => /^-[a-z]/i.test(w))
    .map((w) => w.slice(1))
    .join('');
}

function isBulkRm(words: string[], at: number): boolean {
  const args = words.slice(at + 1);
  const flags = shortFlags(args);
  const recursive = /r/i.test(flags) || args.includes('--recursive');
  const force = /f/i.test(flags) || args.includes('--force');
  return (recursive && force) || args.includes('--no-preserve-root');
}

function isWindowsBulkDelete(name: string, args: string[]): boolean {
  const flags = args.filter((w) => w.startsWith('/')).map((w) => w.toLowerCase());
  if (name === 'del' || name === 'erase') return flags.includes('/f') || flags.includes('/s');
  return (name === 'rmdir' || name === 'rd') && flags.includes('/s');
}

function isShutdown(name: string, args: string[]): boolean {
  if (SHUTDOWN.test(name)) return true;
  if (name === 'init' || name === 'telinit') return args[0] === '0' || args[0] === '6';
  return name === 'systemctl' && args.some((a) => /^(poweroff|reboot|halt|kexec)$/.test(a.toLowerCase()));
}

function writesRawDevice(words: string[]): boolean {
  return (
    words.some((word, i) => {
      const previous = words[i - 1];
      if (previous && REDIRECTS.has(previous) && previous !== '<' && previous !== '<<') return RAW_DEVICE.test(word);
      if (/^of=/i.test(word)) return RAW_DEVICE.test(word.slice(3));
      return false;
    }) ||
    (basename(words[0] ?? '') === 'tee' && words.slice(1).some((w) => RAW_DEVICE.test(w)))
  );
}

/**
 * A program whose name is only known at run time (`$(echo rm)`, `` `echo rm` ``, `$R`) cannot be judged, so it is
 * refused.
 */
function computedProgram(words: string[], at: number): boolean {
  return words[at]!.includes('$');
}

/** `… | sh`, `… | python3 -`: a script that arrives on standard input is never seen by the guard. */
function runsPipedScript(command: SimpleCommand, name: string, args: string[]): boolean {
  if (!command.piped) return false;
  if (!SHELLS.has(name) && !INTERPRETERS.test(name)) return false;
  const operands = args.filter((a) => !a.startsWith('-') || a === '-');
  return (
    operands.length === 0 || operands[0] === '-' || (SHELLS.has(name) && args.some((a) => /^-[a-z]*s[a-z]*$/i.test(a)))
  );
}

/** `perl -e 'fork while 1'`, `python3 -c "…os.fork()…"`: a one-liner that forks is a fork bomb in another language. */
function forksInline(name: string, args: string[]): boolean {
  if (!INTERPRETERS.test(name)) return false;
  const flag = args.findIndex((a) => INLINE_CODE.test(a) || /^-[a-z]*[ec]$/i.test(a));
  return flag >= 0 && /\bfork\b/i.test(args.slice(flag + 1).join(' '));
}

/** `find … -delete` removes everything it matches. */
function isFindDelete(name: string, args: string[]): boolean {
  return name === 'find' && args.includes('-delete');
}

/**
 * What a bulk deletion (`rm -rf …`, `find … -delete`) names, when the command line says it: the operands of an
 * `rm` that is the command itself, or the start points of a `find`. Undefined when the names come from
 * elsewhere (`xargs rm -rf`, `find … -exec rm -rf {} \;`) or the command deletes nothing in bulk.
 */
export function bulkDeletionTargets(command: SimpleCommand): string[] | undefined {
  const { words } = command;
  const positions = commandPositions(words.map((w) => w.toLowerCase()));
  const at = positions[0];
  const fedByAnother = positions.slice(0, -1).some((p) => /^(xargs|find)$/.test(basename(words[p]!).toLowerCase()));
  if (at === undefined || fedByAnother) return undefined;
  const program = basename(words[positions.at(-1)!]!).toLowerCase();
  const args = words.slice(positions.at(-1)! + 1);
  if (program === 'rm' && isBulkRm(words, positions.at(-1)!)) {
    const endOfFlags = args.indexOf('--');
    const operands = args.filter((w, i) =>
      endOfFlags >= 0 ? i > endOfFlags || (i < endOfFlags && !w.startsWith('-')) : !w.startsWith('-'),
    );
    return operands.length > 0 ? operands : undefined;
  }
  if (
    program === 'find' &&
    isFindDelete(
      program,
      args.map((w) => w.toLowerCase()),
    )
  ) {
    const firstExpression = args.findIndex((w) => /^[-(!]/.test(w));
    const starts = firstExpression < 0 ? args : args.slice(0, firstExpression);
    return starts.length > 0 ? starts : ['.'];
  }
  return undefined;
}

/** Judges a bulk deletion the guard would refuse; true lets it run (inside the workspace, with isolation on). */
export type DeletionCheck = (command: SimpleCommand, targets: string[]) => boolean;

function isDangerousCommand(command: SimpleCommand, deletion?: DeletionCheck): boolean {
  const { words } = command;
  const lower = words.map((w) => w.toLowerCase());
  if (writesRawDevice(words)) return true;
  const targets = deletion && bulkDeletionTargets(command);
  const deletionAllowed = targets !== undefined && deletion!(command, targets);
  if (!deletionAllowed && lower.some((w, i) => basename(w) === 'rm' && isBulkRm(words, i))) return true;
  if (lower.some((w) => basename(w) === 'dd') && lower.some((w) => w.startsWith('if='))) return true;
  return commandPositions(lower).some((at) => {
    const name = basename(lower[at]!);
    const args = lower.slice(at + 1);
    return (
      computedProgram(words, at) ||
      FORMATTERS.test(name) ||
      isShutdown(name, args) ||
      isWindowsBulkDelete(name, args) ||
      (!deletionAllowed && isFindDelete(name, args)) ||
      runsPipedScript(command, name, args) ||
      forksInline(name, words.slice(at + 1))
    );
  });
}

/** `:(){ :|:& };:` and its renamed and respaced forms. */
function isForkBomb(commandLine: string): boolean {
  const squeezed = commandLine.replace(/\s+/g, '');
  return /([\w:.-]+)\(\)\{\1\|\1&\};?\1/.test(squeezed) || /function([\w:.-]+)\{\1\|\1&\};?\1/.test(squeezed);
}

/**
 * `commands` are the line's simple commands (`allCommands`); `deletion`, given when the sandbox is the boundary,
 * may let a bulk deletion through.
 */
export function isDangerous(
  commandLine: string,
  commands = allCommands(commandLine),
  deletion?: DeletionCheck,
): boolean {
  return isForkBomb(commandLine) || commands.some((command) => isDangerousCommand(command, deletion));
}
