/**
 * A shell command line split the way a shell would see it, good enough to judge it: simple commands
 * (split at `;`, `&&`, `||`, `|`, `&`, newlines, subshells, groups and command substitutions), each a list of
 * words with quotes and backslashes removed, so `r''m`, `"rm"` and `r\m` all read `rm`. Redirections
 * become their own words (`>`, `>>`, `<`) followed by their target. The commands inside a substitution
 * (`$(…)`, `` `…` ``, also within double quotes) are commands of their own, and the word the substitution
 * stood in keeps the mark `$()`: its text is only known at run time.
 */
export interface SimpleCommand {
  words: string[];
  /** Reads its standard input from the command before it (`a | b`). */
  piped: boolean;
  /**
   * Per word: whether a `$` in it is one the shell expands. `'out/$@'` (single quotes) and `out/\$x` are literal
   * text; a word naming a shell's or `eval`'s script keeps its `$` for the script's own reading all the same.
   */
  expands: boolean[];
}

/** What a word holds where a command substitution stood: a `$`, so every check treats the word as unknown. */
export const SUBSTITUTION = '$()';

const SEPARATORS = new Set([';', '&', '\n', '(', ')', '{', '}']);
export const REDIRECTS = new Set(['>', '>>', '<', '<<', '>|']);

function withoutIfs(line: string): string {
  return line.replace(/\$\{IFS\}|\$IFS\b/g, ' ');
}

/** The words of the command being read in one nesting level (the line, or one substitution). */
class Level {
  words: string[] = [];
  expands: boolean[] = [];
  word = '';
  wordExpands = false;
  inWord = false;
  piped = false;
  /** Open `(` inside this level, so the `)` that closes a `$(` is told apart. */
  parens = 0;
  quote: '"' | undefined;

  constructor(readonly kind: 'line' | 'dollar' | 'backtick') {}
}

class Splitter {
  readonly commands: SimpleCommand[] = [];
  private readonly levels: Level[] = [new Level('line')];

  get level(): Level {
    return this.levels.at(-1)!;
  }

  /** `literal`: text the shell takes as it is (single quotes, a backslash before it). */
  add(text: string, literal = false): void {
    this.level.word += text;
    this.level.inWord = true;
    if (!literal && text.includes('$')) this.level.wordExpands = true;
  }

  endWord(): void {
    const level = this.level;
    if (level.inWord) {
      level.words.push(level.word);
      level.expands.push(level.wordExpands);
    }
    level.word = '';
    level.wordExpands = false;
    level.inWord = false;
  }

  endCommand(pipedNext = false): void {
    this.endWord();
    const level = this.level;
    if (level.words.length > 0) this.commands.push({ words: level.words, piped: level.piped, expands: level.expands });
    level.words = [];
    level.expands = [];
    level.piped = pipedNext;
  }

  redirect(op: string): void {
    if (/^\d+$/.test(this.level.word)) {
      this.level.word = '';
      this.level.inWord = false;
    }
    this.endWord();
    this.level.words.push(op);
    this.level.expands.push(false);
  }

  open(kind: 'dollar' | 'backtick'): void {
    this.levels.push(new Level(kind));
  }

  /** Ends a substitution: its commands stand on their own, and the word it was part of is marked unknown. */
  close(): void {
    this.endCommand();
    if (this.levels.length > 1) this.levels.pop();
    this.add(SUBSTITUTION);
  }

  finish(): SimpleCommand[] {
    while (this.levels.length > 1) this.close();
    this.endCommand();
    return this.commands;
  }
}

function readRedirect(line: string, at: number): { op: string; end: number } {
  let end = at + 1;
  if (line[end] === line[at] || (line[at] === '>' && line[end] === '|')) end += 1;
  const op = line.slice(at, end);
  if (line[end] === '&') {
    end += 1;
    while (/[0-9-]/.test(line[end] ?? '')) end += 1;
  }
  return { op: op === '>|' ? '>' : op, end };
}

/** `${…}` as one piece of a word, so `${HOME}/x` stays one word. */
function braceEnd(line: string, at: number): number {
  const close = line.indexOf('}', at + 2);
  return close < 0 ? line.length : close + 1;
}

export function splitCommands(commandLine: string): SimpleCommand[] {
  const line = withoutIfs(commandLine);
  const out = new Splitter();
  let single = false;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i]!;
    const level = out.level;
    if (single) {
      if (c === "'") single = false;
      else out.add(c, true);
    } else if (c === '$' && line[i + 1] === '(') {
      out.open('dollar');
      i += 1;
    } else if (c === '`') {
      if (level.kind === 'backtick') out.close();
      else out.open('backtick');
    } else if (c === '$' && line[i + 1] === '{') {
      const end = braceEnd(line, i);
      out.add(line.slice(i, end));
      i = end - 1;
    } else if (level.quote === '"') {
      if (c === '"') level.quote = undefined;
      else if (c === '\\' && i + 1 < line.length) out.add(line[++i]!, true);
      else out.add(c);
    } else if (c === "'") {
      single = true;
      out.add('');
    } else if (c === '"') {
      level.quote = '"';
      out.add('');
    } else if (c === '\\' && i + 1 < line.length) {
      if (line[i + 1] !== '\n') out.add(line[i + 1]!, true);
      i += 1;
    } else if (c === '>' || c === '<') {
      const { op, end } = readRedirect(line, i);
      out.redirect(op);
      i = end - 1;
    } else if (c === '$' && (line[i + 1] === "'" || line[i + 1] === '"')) {
    } else if (c === ')' && level.kind === 'dollar' && level.parens === 0) {
      out.close();
    } else if (c === '|') {
      const or = line[i + 1] === '|';
      if (or || line[i + 1] === '&') i += 1;
      out.endCommand(!or);
    } else if (SEPARATORS.has(c)) {
      if (c === '(') level.parens += 1;
      if (c === ')') level.parens = Math.max(0, level.parens - 1);
      out.endCommand();
    } else if (/\s/.test(c)) {
      out.endWord();
    } else {
      out.add(c);
    }
  }
  return out.finish();
}

export function basename(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

const WRAPPERS = new Set([
  'sudo',
  'doas',
  'env',
  'command',
  'builtin',
  'exec',
  'nohup',
  'nice',
  'time',
  'xargs',
  'busybox',
  'stdbuf',
  'ionice',
  'setsid',
  'timeout',
  'watch',
  'strace',
  'unbuffer',
]);
const FLAGS_WITH_VALUES = new Set(['-u', '-g', '-n', '-i', '-p', '-s', '-c', '-l']);

/** Indices of the words that run as programs: the first word, and the word after any wrapper. */
export function commandPositions(words: string[]): number[] {
  const positions: number[] = [];
  let i = 0;
  while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!)) i += 1;
  while (i < words.length) {
    positions.push(i);
    const name = basename(words[i]!).toLowerCase();
    if (name === 'find') return [...positions, ...execTargets(words, i)];
    if (!WRAPPERS.has(name)) return positions;
    i += 1;
    while (
      i < words.length &&
      (words[i]!.startsWith('-') || /^[\d.]+[smhd]?$/.test(words[i]!) || /^[A-Za-z_]\w*=/.test(words[i]!))
    ) {
      i += FLAGS_WITH_VALUES.has(words[i]!) && name !== 'xargs' && name !== 'timeout' ? 2 : 1;
    }
  }
  return positions;
}

function execTargets(words: string[], from: number): number[] {
  const targets: number[] = [];
  for (let i = from + 1; i < words.length - 1; i += 1) {
    if (/^-(exec|execdir|ok|okdir)$/.test(words[i]!)) targets.push(i + 1);
  }
  return targets;
}

export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'fish', 'eval']);

/** Interpreters that read a program from standard input when given no script. */
export const INTERPRETERS = /^(python[\d.]*|perl[\d.]*|ruby[\d.]*|node|nodejs|php[\d.]*|lua[\d.]*|tclsh|osascript)$/;
/** Their flags that take the program as the next word. */
export const INLINE_CODE = /^-(e|E|c|r|-eval|-exec)$/;

/**
 * Indices of the words that are program text for an interpreter (`python3 -c "print(1/2)"`): code, not a
 * path or a command of the line.
 */
export function inlineCode(words: string[]): Set<number> {
  const code = new Set<number>();
  for (const at of commandPositions(words)) {
    if (!INTERPRETERS.test(basename(words[at]!).toLowerCase())) continue;
    const flag = words.findIndex((w, i) => i > at && (INLINE_CODE.test(w) || /^-[a-z]*[ec]$/i.test(w)));
    if (flag >= 0 && flag + 1 < words.length) code.add(flag + 1);
  }
  return code;
}

/** Every simple command, including those inside `sh -c '…'` and `eval '…'`, recursively. */
export function allCommands(commandLine: string, depth = 0): SimpleCommand[] {
  const commands = splitCommands(commandLine);
  if (depth > 4) return commands;
  return commands.flatMap((command) => [
    command,
    ...nestedScripts(command.words).flatMap((s) => allCommands(s, depth + 1)),
  ]);
}

function nestedScripts(words: string[]): string[] {
  return commandPositions(words).flatMap((at) => {
    const name = basename(words[at]!).toLowerCase();
    if (!SHELLS.has(name)) return [];
    if (name === 'eval') return [words.slice(at + 1).join(' ')];
    const flag = words.findIndex((w, i) => i > at && /^-[a-z]*c[a-z]*$/i.test(w));
    return flag >= 0 && flag + 1 < words.length ? [words[flag + 1]!] : [];
  });
}
