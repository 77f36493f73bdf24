/** The long name of the option a parseArgs message names (`-m, --message <value>` → `--message`). */
function optionIn(message: string): string {
  return /--[\w-]+/.exec(message)?.[0] ?? /'(-[^']*)'/.exec(message)?.[1] ?? 'an option';
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(above + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** The closest known option to a mistyped one, when one is close (a letter or two off). */
function closest(names: string[], typed: string): string | undefined {
  const word = typed.replace(/^-+/, '').split('=')[0]!;
  const best = [...names, 'help'].map((name) => ({ name, d: distance(word, name) })).sort((a, b) => a.d - b.d)[0];
  return best && best.d <= Math.max(1, Math.floor(best.name.length / 4)) ? `--${best.name}` : undefined;
}

/**
 * parseArgs' error as the problem a user reads, in our words rather than Node's (which tell how to pass a positional
 * that starts with a dash): `program` is `tern log`, `names` its long options.
 */
export function parseArgsProblem(error: unknown, program: string, names: string[]): string {
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = String(message ?? error);
  const option = optionIn(text);
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const typed = /'([^']+)'/.exec(text)?.[1] ?? option;
    const near = closest(names, typed);
    return `${program} has no option ${typed}${near ? ` (did you mean ${near}?)` : ''}`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return / does not take an argument/.test(text) ? `${option} takes no value` : `${option} needs a value`;
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return `${program} takes no arguments besides its options`;
  return text.split('\n')[0] ?? 'bad arguments';
}
