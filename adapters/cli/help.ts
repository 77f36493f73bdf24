import type { CommandSpec } from './command.js';

export function mainHelp(specs: CommandSpec[]): string {
  const width = Math.max(...specs.map((s) => s.name.length)) + 2;
  return [
    'tern: an event-sourced agent runtime',
    '',
    'Usage: tern <command> [options]',
    '',
    'Commands:',
    ...specs.map((s) => `  ${s.name.padEnd(width)}${s.summary}`),
    '',
    'Options:',
    '  -h, --help     show help (also `tern <command> --help`)',
    '  -v, --version  print the version',
    '',
    'Environment: AGENT_HOME (default ~/.agent), AGENT_CONFIG (config file path).',
  ].join('\n');
}

export function commandHelp(spec: CommandSpec): string {
  const options = Object.entries(spec.options).map(([name, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : '    '}--${name}${o.value ? ` ${o.value}` : ''}`;
    return `  ${flag.padEnd(28)}${o.description}`;
  });
  return [
    `tern ${spec.name}: ${spec.summary}`,
    '',
    'Usage:',
    ...spec.usage.map((u) => `  tern ${u}`),
    ...(options.length ? ['', 'Options:', ...options] : []),
    `  ${'-h, --help'.padEnd(28)}show this help`,
    ...(spec.details ? ['', spec.details] : []),
  ].join('\n');
}
