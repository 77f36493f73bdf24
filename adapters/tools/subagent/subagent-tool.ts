import * as z from 'zod';
import { ok, type Tool } from '../tool.js';
import { requestOf, taskArguments } from './fields.js';
import type { SubagentPort } from './port.js';

const parameters = z.object(taskArguments);

/** `subagent`: runs a task in a fresh context and waits; the child's final answer is the result. */
export function subagentTool(port: SubagentPort): Tool<z.infer<typeof parameters>> {
  return {
    name: 'subagent',
    description:
      'Execute a subagent task synchronously and return its final answer. Use ' +
      'this to delegate a self-contained piece of work to an independent agent ' +
      'instance with its own context (it sees none of this conversation).',
    parameters,
    async execute(args, context) {
      return ok(await port.run(requestOf(args), context));
    },
  };
}
