import type { Writable } from 'node:stream';
import type { ControlHost } from '../../actors/gateway/control-service.js';

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
  /** Aborted on SIGINT/SIGTERM (its reason names the signal), so long-running commands end cleanly. */
  signal: AbortSignal;
  /** The caller's working directory, when it is not this process's (a command the gateway runs for a client). */
  cwd?: string;
  /** Set when the command runs inside a gateway for a client (`inGateway`): the gateway's log, bus and engine. */
  gateway?: ControlHost;
  /** The commands this one was run among (`tern gateway` runs those marked `inGateway` for its clients). */
  commands?: readonly CommandSpec[];
}

export interface CommandModule {
  run(context: CommandContext): Promise<number | undefined>;
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
  /**
   * Whether a running gateway of this `AGENT_HOME` runs the command (given its positionals) instead of this process:
   * its output comes back over the control socket. Without a gateway the command runs here.
   */
  inGateway?: (positionals: string[], values: OptionValues) => boolean;
  load: () => Promise<CommandModule>;
}

export function print(stream: Writable, line: string): void {
  stream.write(`${line}\n`);
}
