import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { CliError, UsageError } from './errors.js';

const expectSchema = z.strictObject({
  contains: z.string().optional(),
  matches: z.string().optional(),
  tool: z.string().optional(),
});

/** The `tern agent --script` file of INTERFACES.md. */
export const scriptSchema = z.strictObject({
  agent: z.string().min(1).optional(),
  session: z.string().min(1).optional(),
  turns: z.array(z.strictObject({ user: z.string().min(1), expect: expectSchema.optional() })).min(1),
});
export type Script = z.infer<typeof scriptSchema>;
export type Expectation = z.infer<typeof expectSchema>;

export function readScript(path: string): Script {
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new CliError(
      'script_unreadable',
      `cannot read the script ${path}`,
      (error as Error).message.split('\n')[0]!,
      'Check the path and the YAML syntax.',
    );
  }
  const parsed = scriptSchema.safeParse(raw);
  if (parsed.success) {
    parsed.data.turns.forEach((turn, index) => checkPattern(turn.expect?.matches, `turns[${index}].expect.matches`));
    return parsed.data;
  }
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(script)'}: ${i.message}`).join('; ');
  throw new CliError(
    'script_invalid',
    `the script ${path} is invalid`,
    problems,
    'Fields: agent, session, turns[].user, turns[].expect.contains|matches|tool.',
  );
}

/**
 * A `matches` pattern JavaScript cannot compile fails before any turn runs (no model call spent on it). Patterns from
 * other languages trip here most: `(?i)` is how Go and Python ask for case-insensitive matching.
 */
function checkPattern(pattern: string | undefined, where: string): void {
  if (pattern === undefined) return;
  try {
    new RegExp(pattern);
  } catch (error) {
    const why = (error as Error).message.replace(/^.*: /, '');
    const hint = /^\(\?[a-z]+\)/.test(pattern) ? '; JavaScript has no inline flags such as (?i)' : '';
    const problem = `${where} ${JSON.stringify(pattern)} is not a JavaScript regular expression (${why}${hint})`;
    throw new UsageError(problem, 'Run `tern help agent`.');
  }
}

/** Why a turn missed its expectation, or undefined when it met it. */
export function unmet(expectation: Expectation | undefined, reply: string, tools: string[]): string | undefined {
  if (!expectation) return undefined;
  if (expectation.contains !== undefined && !reply.includes(expectation.contains))
    return `reply does not contain ${JSON.stringify(expectation.contains)}`;
  if (expectation.matches !== undefined && !new RegExp(expectation.matches).test(reply))
    return `reply does not match /${expectation.matches}/`;
  if (expectation.tool !== undefined && !tools.includes(expectation.tool))
    return `tool ${expectation.tool} was not called (called: ${tools.join(', ') || 'none'})`;
  return undefined;
}
