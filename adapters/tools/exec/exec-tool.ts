import * as z from 'zod';
import type { ExecOptions } from '../options.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { fail, ok, ToolError, type Tool, type ToolResult } from '../tool.js';
import { ExecGuard } from './exec-guard.js';
import { CommandLauncher } from './launch.js';
import { runCommand, type CommandOutcome } from './run-command.js';

const parameters = z.object({
  command: z.string().min(1).describe('Shell command line to run'),
  working_dir: z.string().optional().describe('Folder to run in, relative to the workspace (default: the workspace)'),
  timeout_seconds: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('Stop the command after this many seconds (capped by the configured limit)'),
});

function render(outcome: CommandOutcome, timeoutMs: number, maxBytes: number): ToolResult {
  const cut = outcome.truncated ? `\n[exec: output cut at ${maxBytes} bytes]` : '';
  const output = (outcome.output || '(no output)') + cut;
  if (outcome.kind === 'timed_out') return fail(`${output}\n[exec: stopped after ${timeoutMs / 1000} s timeout]`);
  if (outcome.kind === 'aborted') return fail(`${output}\n[exec: stopped because the turn was cancelled]`);
  return outcome.code === 0 ? ok(output) : fail(`${output}\n[exec: exit code ${outcome.code}]`);
}

export function execTool(sandbox: Sandbox, options: ExecOptions): Tool<z.infer<typeof parameters>> {
  const guard = new ExecGuard(options, sandbox);
  const launcher = new CommandLauncher(sandbox, options);
  return {
    name: 'exec',
    description:
      'Run a shell command line in the workspace and return its combined output. Dangerous ' +
      'commands and, by default, paths outside the workspace are refused; where bubblewrap ' +
      'works, the command runs in a sandbox that shows only the workspace and the system.',
    parameters,
    async execute({ command, working_dir, timeout_seconds }, context) {
      const cwd = working_dir === undefined ? sandbox.workspace : sandbox.resolve(working_dir, 'read');
      const state = await launcher.state();
      const verdict = guard.check(command, cwd, context.remote, state.kind === 'isolated');
      if (!verdict.allowed) {
        options.log({ level: 'error', tool: 'exec', message: verdict.message });
        throw new ToolError(verdict.code, verdict.message);
      }
      const timeoutMs = Math.min(
        timeout_seconds === undefined ? options.timeoutMs : timeout_seconds * 1000,
        options.timeoutMs,
      );
      const launch = await launcher.launch(command, cwd, state);
      return render(
        await runCommand(launch, timeoutMs, options.maxOutputBytes, context.signal),
        timeoutMs,
        options.maxOutputBytes,
      );
    },
  };
}
