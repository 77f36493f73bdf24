/** Where a JSON text first goes wrong, and what was expected there. */
interface SyntaxSpot {
  offset: number;
  expected: string;
}

class Stop extends Error {
  constructor(readonly spot: SyntaxSpot) {
    super(spot.expected);
  }
}

/**
 * Reads `text` as JSON only to find its first mistake: JSON.parse's own message gives a position only for some
 * mistakes ("Unexpected token '}', … is not valid JSON" has none) and never a line on Node 20.
 */
function firstMistake(text: string): SyntaxSpot | undefined {
  let i = 0;
  const fail = (expected: string): never => {
    throw new Stop({ offset: i, expected });
  };
  const blanks = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const string = (): void => {
    i++;
    for (;;) {
      if (i >= text.length) fail('a closing " before the end of the text');
      const c = text[i]!;
      if (c === '"') return void i++;
      if (c < ' ') fail('no line break or control character inside a string (write \\n)');
      if (c === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail('four hex digits after \\u');
          i += 5;
        } else if (text[i] !== undefined && '"\\/bfnrt'.includes(text[i]!)) i++;
        else fail('an escape such as \\" \\\\ \\n or \\u0041');
      } else i++;
    }
  };
  const number = (): void => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!match || match[0] === '' || match[0] === '-')
      fail('a value (a string in double quotes, a number, true, false, null, an object or a list)');
    i += match![0].length;
  };
  const value = (): void => {
    blanks();
    const c = text[i];
    if (c === '{') return object();
    if (c === '[') return list();
    if (c === '"') return string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return number();
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return;
      }
    }
    fail(
      c === undefined
        ? 'a value before the end of the text'
        : 'a value (a string in double quotes, a number, true, false, null, an object or a list)',
    );
  };
  const object = (): void => {
    i++;
    blanks();
    if (text[i] === '}') return void i++;
    for (;;) {
      blanks();
      if (text[i] !== '"')
        fail(
          text[i] === '}'
            ? 'another "key": value after the comma (JSON allows no comma before })'
            : 'a key in double quotes',
        );
      string();
      blanks();
      if (text[i] !== ':') fail('a colon after the key');
      i++;
      value();
      blanks();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '}') return void i++;
      fail('a comma between entries, or } to end the object');
    }
  };
  const list = (): void => {
    i++;
    blanks();
    if (text[i] === ']') return void i++;
    for (;;) {
      blanks();
      if (text[i] === ']') fail('another value after the comma (JSON allows no comma before ])');
      value();
      blanks();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === ']') return void i++;
      fail('a comma between values, or ] to end the list');
    }
  };
  try {
    value();
    blanks();
    if (i < text.length) fail('nothing after the end of the config object');
    return undefined;
  } catch (error) {
    if (error instanceof Stop) return error.spot;
    throw error;
  }
}

/**
 * JSON.parse's failure as a user can act on it: the problem, `(file): not valid JSON at 3:8 (line:column): expected …`,
 * and the excerpt that shows it, the line with a caret under the place. Columns count characters from 1, as editors
 * show them.
 */
export function jsonSyntaxProblem(text: string, parseError: Error): { problem: string; excerpt: string[] } {
  const spot = firstMistake(text);
  if (!spot) return { problem: `(file): not valid JSON (${parseError.message})`, excerpt: [] };
  const before = text.slice(0, spot.offset);
  const line = before.split('\n').length;
  const start = before.lastIndexOf('\n') + 1;
  const column = spot.offset - start + 1;
  const end = text.indexOf('\n', start);
  const source = text
    .slice(start, end === -1 ? undefined : end)
    .replace(/\r$/, '')
    .replace(/\t/g, ' ');
  const gutter = `${line} | `;
  return {
    problem: `(file): not valid JSON at ${line}:${column} (line:column): expected ${spot.expected}`,
    excerpt: [`  ${gutter}${source}`, `  ${' '.repeat(gutter.length - 2)}| ${' '.repeat(column - 1)}^`],
  };
}
