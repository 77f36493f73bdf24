/** Words that open a request without saying what it is. */
const FILLER = new Set([
  'a',
  'also',
  'an',
  'and',
  'can',
  'could',
  'hello',
  'hey',
  'hi',
  'i',
  'just',
  'kindly',
  'me',
  'now',
  'ok',
  'okay',
  'please',
  'pls',
  'quickly',
  'the',
  'then',
  'to',
  'us',
  'we',
  'will',
  'would',
  'you',
]);

const SUMMARY_CHARS = 200;

/** The task's first word that says what to do ("Please summarize …" → `summarize`); `chat` when none does. */
export function taskVerb(task: string): string {
  const words = task.toLowerCase().match(/\p{L}+/gu) ?? [];
  return words.find((w) => !FILLER.has(w)) ?? 'chat';
}

/**
 * What related tasks share: their verb and the set of tools they used (`summarize|web_fetch`, `write|-` for none).
 * Two turns of one shape are the same kind of work done the same way.
 */
export function taskShape(task: string, tools: readonly string[]): string {
  return `${taskVerb(task)}|${[...new Set(tools)].sort().join('+') || '-'}`;
}

/** The task on one line, at most 200 characters. */
export function taskSummary(task: string): string {
  const line = task.replace(/\s+/g, ' ').trim();
  return line.length <= SUMMARY_CHARS ? line : `${line.slice(0, SUMMARY_CHARS - 1)}…`;
}
