import type { Writable } from 'node:stream';

export type OptionSpec = {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  description: string;
  /** Shown in help as `--name VALUE`. */
  value?: string;
};

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export interface CommandContext {
  positionals: string[];
  values: OptionValues;
  json: boolean;
  env: NodeJS.ProcessEnv;
  stdout: Writable;
  stderr: Writable;
  /** Aborted on SIGINT/SIGTERM, so long-running commands end cleanly. */
  signal: AbortSignal;
}

export interface CommandModule {
  run(context: CommandContext): Promise<number | void>;
}

/** A command as help lists it. The implementation loads only when the command runs, to keep start-up fast. */
export interface CommandSpec {
  name: string;
  summary: string;
  /** Usage lines after `tern `, e.g. `log [--session KEY] …`. */
  usage: string[];
  options: Record<string, OptionSpec>;
  /** Extra help text: subcommands, examples. */
  details?: string;
  load: () => Promise<CommandModule>;
}

export function print(stream: Writable, line: string): void {
  stream.write(`${line}\n`);
}
