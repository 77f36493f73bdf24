/**
 * How text from outside (a model's tool argument keys, a channel's error, a file name) goes into a log line: it can
 * neither start a line of its own nor do anything when the line is read by a shell (a log that ends up in `~/.bashrc`
 * must stay inert). A value is written bare only when it holds nothing but harmless characters; otherwise it is a
 * JSON string in which `$`, backquote and `!` are escaped too (JSON.parse reads it back unchanged).
 */
const BARE = /^[\w.,:/@+%=-]*$/;
/** What a double-quoted shell string would still act on, and invisible line and control characters. */
const ACTIVE_IN_QUOTES = /[$`!\u007f-\u009f\u2028\u2029]/g;
/** In a message (kept readable): control characters, and the two characters that start a command substitution. */
const ACTIVE_IN_MESSAGE = /[\u0000-\u001f$`\u007f-\u009f\u2028\u2029]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const unicodeEscape = (char: string): string => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

export function logValue(value: string): string {
  if (BARE.test(value)) return value;
  return JSON.stringify(value).replace(ACTIVE_IN_QUOTES, unicodeEscape);
}

/** Field names come from code; anything else in one becomes `_`. */
export function logKey(key: string): string {
  return key.replace(/[^\w.-]/g, '_') || '_';
}

export function logMessage(message: string): string {
  return message.replace(ACTIVE_IN_MESSAGE, (char) => NAMED[char] ?? unicodeEscape(char));
}
