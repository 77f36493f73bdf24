import type { CommandSpec } from '../command.js';

const json = { type: 'boolean', description: 'print JSON instead of text' } as const;

/** Every command that works. Help is generated from this list; add a command here when it works. */
export const commands: CommandSpec[] = [
  {
    name: 'agent',
    summary: 'talk to an agent from the terminal: one message, a chat, or a script of turns',
    usage: [
      'agent -m "text" [--agent ID] [--session KEY] [--model NAME] [--json]',
      'agent [--agent ID] [--session KEY]            (interactive chat)',
      'agent --script FILE.yaml [--json]',
    ],
    options: {
      message: { type: 'string', short: 'm', value: 'TEXT', description: 'send one message and print the reply' },
      agent: { type: 'string', value: 'ID', description: 'the agent (default: the default agent)' },
      session: { type: 'string', value: 'KEY', description: 'the conversation to continue (default: "default"; scripts: a fresh one)' },
      model: { type: 'string', value: 'NAME', description: 'a model_name from model_list for this run' },
      script: { type: 'string', value: 'FILE', description: 'run the turns of a YAML script; exit 1 if an expectation fails' },
      json,
    },
    details: 'Script file:\n  agent: main\n  session: demo\n  turns:\n    - user: "Write hello.txt containing hi"\n      expect: { contains: "hello.txt" }   # or matches: REGEX, tool: NAME',
    load: () => import('./agent.js'),
  },
  {
    name: 'replay',
    summary: 'show the timeline of a recorded turn, or rerun it and report where it diverges',
    usage: ['replay TURN [--json]', 'replay TURN --rerun [--json]'],
    options: {
      rerun: { type: 'boolean', description: 'run the turn machine again, answering from the log; print identical or the first divergence (exit 1)' },
      json,
    },
    load: () => import('./replay.js'),
  },
  {
    name: 'log',
    summary: 'read the event log, also while a gateway is writing it',
    usage: ['log [--session KEY] [--turn ID] [--type GLOB] [--after SEQ] [--limit N] [--follow] [--json]'],
    options: {
      session: { type: 'string', value: 'KEY', description: 'only events of this session (key or sk_v1_ id)' },
      turn: { type: 'string', value: 'ID', description: 'only events of this turn' },
      type: { type: 'string', value: 'GLOB', description: 'only these event types, e.g. provider.* or turn.*,tool.*' },
      after: { type: 'string', value: 'SEQ', description: 'only events after this sequence number, oldest first' },
      limit: { type: 'string', value: 'N', description: 'at most N events (default 50: the newest, oldest first)' },
      follow: { type: 'boolean', short: 'f', description: 'keep printing new events as they are appended' },
      json,
    },
    load: () => import('./log.js'),
  },
  {
    name: 'onboard',
    summary: 'create ~/.agent: config.json, .security.yml and the workspace (never overwrites)',
    usage: ['onboard [--json]'],
    options: { json },
    load: () => import('./onboard.js'),
  },
  {
    name: 'config',
    summary: 'show, validate or locate the effective config (secrets masked)',
    usage: ['config show [--json]', 'config validate [FILE] [--json]', 'config path'],
    options: { json },
    details:
      'Subcommands:\n  show      the effective config: defaults, config file, .security.yml, environment\n  validate  check a config file; prints every problem as `path: message (allowed: …)`, exit 1 if any\n  path      the config file in use (AGENT_CONFIG, else $AGENT_HOME/config.json)',
    load: () => import('./config.js'),
  },
  {
    name: 'status',
    summary: 'config path, workspace, models (keys masked), channels, MCP servers, gateway up or down',
    usage: ['status [--json]'],
    options: { json },
    load: () => import('./status.js'),
  },
  {
    name: 'tool',
    summary: 'list the tools an agent exposes, or call one under the policy a turn applies',
    usage: ['tool list [--agent ID] [--json]', 'tool call NAME [ARGS_JSON] [--agent ID] [--channel NAME] [--json]'],
    options: {
      agent: { type: 'string', value: 'ID', description: 'the agent whose tools to use (default main)' },
      channel: { type: 'string', value: 'NAME', description: 'the channel the call pretends to come from (default cli; others are remote)' },
      json,
    },
    details: 'Prints what the model would receive. Exit 0 when the tool succeeded, 1 when it returned an error.',
    load: () => import('./tool.js'),
  },
  {
    name: 'version',
    summary: 'print the version',
    usage: ['version'],
    options: {},
    load: () => import('./version.js'),
  },
];
