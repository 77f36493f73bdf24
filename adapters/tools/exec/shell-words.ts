/**
 * A shell command line split the way a shell would see it, good enough to judge it: simple commands
 * (split at `;`, `&&`, `||`, `|`, `&`, newlines, subshells and command substitutions), each a list of
 * words with quotes and backslashes removed, so `r''m`, `"rm"` and `r\m` all read `rm`. Redirections
 * become their own words (`>`, `>>`, `<`) followed by their target.
 */
export type SimpleCommand = string[];

const SEPARATORS = new Set([';', '|', '&', '\n', '(', ')', '`', '{', '}']);
export const REDIRECTS = new Set(['>', '>>', '<', '<<', '>|']);

function withoutIfs(line: string): string {
  return line.replace(/\$\{IFS\}|\$IFS\b/g, ' ');
}

class Splitter {
  readonly commands: SimpleCommand[] = [];
  private words: string[] = [];
  private word = '';
  private inWord = false;

  add(char: string): void {
    this.word += char;
    this.inWord = true;
  }

  endWord(): void {
    if (this.inWord) this.words.push(this.word);
    this.word = '';
    this.inWord = false;
  }

  endCommand(): void {
    this.endWord();
    if (this.words.length > 0) this.commands.push(this.words);
    this.words = [];
  }

  redirect(op: string): void {
    if (/^\d+$/.test(this.word)) {
      this.word = '';
      this.inWord = false;
    }
    this.endWord();
    this.words.push(op);
  }

  get current(): string {
    return this.word;
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

export function splitCommands(commandLine: string): SimpleCommand[] {
  const line = withoutIfs(commandLine);
  const out = new Splitter();
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else out.add(c);
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && i + 1 < line.length) out.add(line[++i]!);
      else out.add(c);
    } else if (c === "'" || c === '"') {
      quote = c;
      out.add('');
    } else if (c === '\\' && i + 1 < line.length) {
      if (line[i + 1] !== '\n') out.add(line[i + 1]!);
      i += 1;
    } else if (c === '>' || c === '<') {
      const { op, end } = readRedirect(line, i);
      out.redirect(op);
      i = end - 1;
    } else if (c === '$' && (line[i + 1] === "'" || line[i + 1] === '"')) {
      continue;
    } else if (c === '$' && line[i + 1] === '(') {
      out.endCommand();
      i += 1;
    } else if (SEPARATORS.has(c)) {
      out.endCommand();
    } else if (/\s/.test(c)) {
      out.endWord();
    } else {
      out.add(c);
    }
  }
  out.endCommand();
  return out.commands;
}

export function basename(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

const WRAPPERS = new Set(['sudo', 'doas', 'env', 'command', 'builtin', 'exec', 'nohup', 'nice', 'time', 'xargs', 'busybox', 'stdbuf', 'ionice', 'setsid', 'timeout', 'watch', 'strace', 'unbuffer']);
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
    while (i < words.length && (words[i]!.startsWith('-') || /^[\d.]+[smhd]?$/.test(words[i]!) || /^[A-Za-z_]\w*=/.test(words[i]!))) {
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

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'fish', 'eval']);

/** Every simple command, including those inside `sh -c '…'` and `eval '…'`, recursively. */
export function allCommands(commandLine: string, depth = 0): SimpleCommand[] {
  const commands = splitCommands(commandLine);
  if (depth > 4) return commands;
  return commands.flatMap((words) => [words, ...nestedScripts(words).flatMap((s) => allCommands(s, depth + 1))]);
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
