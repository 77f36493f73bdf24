import type { CommandSpec } from '../command.js';
import { CHANNEL_SETUP_OPTIONS } from '../onboard-channels.js';

const json = { type: 'boolean', description: 'print JSON instead of text' } as const;
/** `--cluster URL` of the commands that read the log (#27). */
const clusterOption = {
  type: 'string',
  value: 'URL',
  description: "read the cluster log on this NATS server: every gateway's events (wins over cluster.url)",
} as const;

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
      session: {
        type: 'string',
        value: 'KEY',
        description: 'the conversation to continue (default: "default"; scripts: a fresh one)',
      },
      model: { type: 'string', value: 'NAME', description: 'a model_name from model_list for this run' },
      script: {
        type: 'string',
        value: 'FILE',
        description: 'run the turns of a YAML script; exit 1 if an expectation fails',
      },
      json,
    },
    details:
      'Script file:\n  agent: main\n  session: demo\n  turns:\n    - user: "Write hello.txt containing hi"\n' +
      '      expect: { contains: "hello.txt" }   # or matches: REGEX, tool: NAME',
    load: () => import('./agent.js'),
  },
  {
    name: 'replay',
    summary: 'show the timeline of a recorded turn, or rerun it and report where it diverges',
    usage: ['replay TURN [--cluster URL] [--json]', 'replay TURN --rerun [--cluster URL] [--json]'],
    options: {
      rerun: {
        type: 'boolean',
        description:
          'run the turn machine again, answering from the log; print identical or the first divergence (exit 1)',
      },
      cluster: clusterOption,
      json,
    },
    details:
      'With --cluster (or cluster.url in the config) the turn is ' +
      'looked up in the cluster log, whichever gateway ran it.',
    load: () => import('./replay.js'),
  },
  {
    name: 'log',
    summary: 'read the event log, also while a gateway is writing it',
    usage: [
      'log [--session KEY] [--turn ID [--children]] [--type GLOB] [--after SEQ] [--limit N] [--follow] ' +
        '[--cluster URL] [--json]',
      'log verify [--json]            (check the log file; exit 1 with what is damaged)',
      'log salvage [--json]           (copy every readable event into a new log; the damaged one is kept aside)',
      'log compact [--json]           (archive events older than log.retention.max_age_days; reclaim the space)',
      "log forget --sender ID [--json] (remove a person's messages and the turns they started)",
      'log import FILE [--json]       (bring the events of an archive under sessions/archive/ back into the log)',
      'log --archive [--turn ID] [--type GLOB] [--session ID] (read what compact archived)',
    ],
    options: {
      session: {
        type: 'string',
        value: 'KEY',
        description:
          'only events of this session: the key given to `tern agent ' +
          '--session`, the full key, the sk_v1_ id or a unique prefix of it',
      },
      turn: { type: 'string', value: 'ID', description: 'only events of this turn' },
      children: {
        type: 'boolean',
        description: 'with --turn: also the events of the subagents the turn started, and theirs',
      },
      type: { type: 'string', value: 'GLOB', description: 'only these event types, e.g. provider.* or turn.*,tool.*' },
      after: { type: 'string', value: 'SEQ', description: 'only events after this sequence number, oldest first' },
      limit: { type: 'string', value: 'N', description: 'at most N events (default 50: the newest, oldest first)' },
      follow: { type: 'boolean', short: 'f', description: 'keep printing new events as they are appended' },
      archive: { type: 'boolean', description: 'read the archived events (sessions/archive/) instead of the log' },
      sender: { type: 'string', value: 'ID', description: 'with forget: the sender id whose data is removed' },
      cluster: clusterOption,
      json,
    },
    details:
      "With --cluster (or cluster.url in the config) it reads the cluster log: every gateway's events, " +
      'each line naming the\ngateway that wrote it; SEQ is then the place in the cluster log (TERN_LOG).\n' +
      "verify and salvage work on this workspace's log while no gateway writes it: verify reads the file " +
      'without lmdb and\nlists every problem; salvage writes every readable event into a new log, a log.lost ' +
      'event in the place of each\nlost one, and moves the damaged files to sessions/damaged-<time>/.',
    load: () => import('./log.js'),
  },
  {
    name: 'memory',
    summary: 'search what the agent remembers (memory files, past conversations), or rebuild the index',
    usage: ['memory search WORDS… [--agent ID] [--session KEY] [--limit N] [--json]', 'memory reindex [--json]'],
    options: {
      agent: {
        type: 'string',
        value: 'ID',
        description: 'the agent whose conversations to search (default: the default agent)',
      },
      session: {
        type: 'string',
        value: 'KEY',
        description: 'search as this chat would: only what its memory.scope lets it recall',
      },
      limit: { type: 'string', value: 'N', description: 'at most N results (default 10)' },
      json,
    },
    details:
      'The index is a projection of the event log, saved in workspace/state/memory-index.json; delete it or run\n' +
      '`tern memory reindex` and it is built again from the log.',
    load: () => import('./memory.js'),
  },
  {
    name: 'onboard',
    summary: 'set up ~/.agent: config, credentials (0600), workspace, a first model and chat channels, then try them',
    usage: [
      'onboard                  (on a terminal: asks each question)',
      'onboard --provider NAME [--api-key KEY] [--api-base URL] [--model ID] [--model-name NAME] [--no-test] [--json]',
      'onboard [--telegram-token T] [--discord-token T] [--slack-token ' +
        'T --slack-app-token T] [--owner ID] [--no-test] [--json]',
      'onboard [--feishu-app-id ID --feishu-app-secret S [--feishu-lark]] ' +
        '[--dingtalk-client-id ID --dingtalk-client-secret S]',
      'onboard [--wecom-bot-id ID --wecom-secret S] [--qq-app-id ID ' +
        '--qq-app-secret S] [--onebot-url URL [--onebot-token T]]',
      'onboard --pico-token T | --pico-client-url URL [--pico-client-token T]',
      'onboard --irc-server HOST:PORT --irc-nick NICK [--irc-channels #A,#B] [--irc-password P] [--irc-no-tls]',
      'onboard --signal-account +NUMBER [--signal-daemon HOST:PORT]',
      'onboard --mattermost-url URL --mattermost-token T',
      'onboard --email-address ADDRESS --email-password P --email-imap HOST[:PORT] --email-smtp HOST[:PORT]',
      'onboard --line-channel-secret S --line-channel-access-token T',
      'onboard --whatsapp-phone-number-id ID --whatsapp-access-token T ' +
        '--whatsapp-app-secret S --whatsapp-verify-token T',
      'onboard --whatsapp-native | --whatsapp-bridge-url URL',
      'onboard --matrix-homeserver URL --matrix-user-id @BOT:SERVER --matrix-token T [--owner @YOU:SERVER]',
    ],
    options: {
      provider: {
        type: 'string',
        value: 'NAME',
        description:
          'a provider of the catalogue (openai, anthropic, gemini, …; local: ollama, lmstudio, vllm, litellm, custom)',
      },
      'api-key': { type: 'string', value: 'KEY', description: 'the provider key, written to .security.yml (mode 600)' },
      'api-base': {
        type: 'string',
        value: 'URL',
        description: "the provider's address (a local server, azure, custom)",
      },
      model: {
        type: 'string',
        value: 'ID',
        description: 'the model id the provider serves (default: a suggested one where there is one)',
      },
      'model-name': { type: 'string', value: 'NAME', description: 'the model_name agents use (default: the model id)' },
      'telegram-token': {
        type: 'string',
        value: 'TOKEN',
        description: 'add an enabled Telegram channel with this bot token',
      },
      'discord-token': {
        type: 'string',
        value: 'TOKEN',
        description: 'add an enabled Discord channel with this bot token',
      },
      'slack-token': {
        type: 'string',
        value: 'TOKEN',
        description: 'add an enabled Slack channel: the bot token (xoxb-…)',
      },
      'slack-app-token': {
        type: 'string',
        value: 'TOKEN',
        description: 'and its app-level token for Socket Mode (xapp-…)',
      },
      'matrix-homeserver': {
        type: 'string',
        value: 'URL',
        description: "add an enabled Matrix channel: the bot's homeserver",
      },
      'matrix-user-id': { type: 'string', value: 'ID', description: "and the bot's user id (@bot:server)" },
      'matrix-token': { type: 'string', value: 'TOKEN', description: "and the bot account's access token" },
      owner: {
        type: 'string',
        value: 'ID',
        description: 'your own user id or @name on those channels (comma-separated for several): their allow_from',
      },
      ...CHANNEL_SETUP_OPTIONS,
      'no-test': { type: 'boolean', description: 'do not try the model and the channels after saving' },
      json,
    },
    details:
      'Never overwrites a file it did not create: a model or channel is added to config.json (it must not be ' +
      'there yet)\n' +
      'and its key or token to .security.yml, keeping the comments. Then one question to the model and one\n' +
      'authenticated call per channel say what works; exit 1 when something does not.',
    load: () => import('./onboard.js'),
  },
  {
    name: 'config',
    summary: 'show, validate or locate the effective config (secrets masked)',
    usage: ['config show [--json]', 'config validate [FILE] [--strict] [--json]', 'config path'],
    options: {
      strict: { type: 'boolean', description: 'validate: warnings (unknown keys, …) count as problems' },
      json,
    },
    details:
      'Subcommands:\n  show      the effective config: defaults, config file, .security.yml, environment\n' +
      '  validate  check a config file; prints every problem as `path: message (allowed: …)`, exit 1 if any\n' +
      '            (with --strict, warnings too)\n' +
      '  path      the config file in use (AGENT_CONFIG, else $AGENT_HOME/config.json)',
    load: () => import('./config.js'),
  },
  {
    name: 'doctor',
    summary:
      'check config, models, channels, isolation, file modes, logs and a running gateway; --fix applies safe fixes',
    usage: ['doctor [--fix] [--offline] [--json]'],
    options: {
      fix: {
        type: 'boolean',
        description:
          'apply the safe fixes: owner-only modes of secret files, migrate a ' +
          'version 0/1 config (with backups), remove a stale lock note',
      },
      offline: { type: 'boolean', description: 'ask no model and no chat platform (no network)' },
      json,
    },
    details:
      'One short question per enabled model and one authenticated call per enabled channel (Telegram getMe, ' +
      'Discord\nusers/@me, Slack auth.test) unless --offline. Exit 1 when a check is an error.',
    load: () => import('./doctor.js'),
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
      agent: {
        type: 'string',
        value: 'ID',
        description: 'the agent whose turn to act as (default: the default agent)',
      },
      channel: {
        type: 'string',
        value: 'NAME',
        description:
          'the channel the turn comes from (default cli; chat channels are remote and get message/send_file)',
      },
      json,
    },
    details:
      'The same tools, sandbox, exec policy, output filter (secrets masked) and MCP servers as a turn of that ' +
      'agent on that\n' +
      'channel: AGENT.md `tools` and the turn profile apply. Prints what the model would receive; a message a ' +
      'tool would\n' +
      'send is shown on stderr, not delivered. Exit 0 when the tool succeeded, 1 when it returned an error.',
    inGateway: (_, values) => values.channel === undefined || values.channel === 'cli',
    load: () => import('./tool.js'),
  },
  {
    name: 'auth',
    summary: 'sign in to OAuth-only providers (antigravity) and check the GitHub Copilot bridge',
    usage: [
      'auth login --provider antigravity [--no-browser] [--json]',
      'auth login --provider github-copilot [--api-base HOST:PORT] [--connect-mode grpc|stdio]',
      'auth logout --provider NAME',
      'auth status [--provider NAME] [--json]',
    ],
    options: {
      provider: { type: 'string', value: 'NAME', description: 'antigravity or github-copilot' },
      'no-browser': {
        type: 'boolean',
        description: 'headless: print the URL and read back the URL the browser ends on',
      },
      'api-base': {
        type: 'string',
        value: 'HOST:PORT',
        description: 'the Copilot CLI server (default localhost:4321)',
      },
      'connect-mode': { type: 'string', value: 'MODE', description: 'grpc: a running server; stdio: start `copilot`' },
      json,
    },
    details:
      'Tokens go to $AGENT_HOME/auth/providers.json (owner-only); status shows them masked.\n' +
      'The Copilot CLI keeps its own GitHub sign-in: login and status ask its headless server who is signed in.',
    load: () => import('./auth.js'),
  },
  {
    name: 'mcp',
    summary: 'MCP servers: list, show, test, add, remove, login (OAuth)',
    usage: [
      'mcp list [--json]',
      'mcp show NAME [--json]',
      'mcp test NAME [--json]',
      'mcp add NAME URL [--type http|sse] [--header K=V]… [--oauth] [--deferred] [--disabled]',
      'mcp add NAME [--env K=V]… [--env-file FILE] [--inherit-env] [--deferred] [--disabled] -- COMMAND [ARGS…]',
      'mcp remove NAME',
      'mcp login NAME [--no-browser]',
    ],
    options: {
      type: {
        type: 'string',
        value: 'TYPE',
        description: 'transport: stdio, sse or http (default: http for a URL, stdio for a command)',
      },
      url: { type: 'string', value: 'URL', description: 'endpoint of a remote server' },
      header: {
        type: 'string',
        multiple: true,
        value: 'K=V',
        description: 'HTTP header for a remote server (repeatable)',
      },
      env: {
        type: 'string',
        multiple: true,
        value: 'K=V',
        description: 'environment variable for a stdio server (repeatable)',
      },
      'env-file': {
        type: 'string',
        value: 'FILE',
        description: 'environment file for a stdio server (relative to $AGENT_HOME)',
      },
      'inherit-env': { type: 'boolean', description: 'pass the whole environment to a stdio server' },
      deferred: { type: 'boolean', description: 'hide the tools until a discovery search finds them' },
      disabled: { type: 'boolean', description: 'add the server switched off' },
      oauth: { type: 'boolean', description: 'the server logs in with browser OAuth (then run `tern mcp login NAME`)' },
      'no-browser': { type: 'boolean', description: 'print the login URL without opening a browser' },
      json,
    },
    details:
      'Subcommands:\n' +
      '  list    every server with enabled, deferred and connected (connects each enabled server once)\n' +
      '  show    connect one server and list its tools\n' +
      '  test    connect one server; exit 1 with the reason if it fails\n' +
      '  add     add or replace tools.mcp.servers.NAME in the config file\n' +
      '  remove  delete tools.mcp.servers.NAME\n' +
      '  login   browser OAuth (PKCE, loopback redirect); tokens go to $AGENT_HOME/auth/mcp/NAME.json\n' +
      'External MCP tools run outside the workspace file policy.',
    load: () => import('./mcp.js'),
  },
  {
    name: 'gateway',
    summary: 'run channels, agents, heartbeat and logs until SIGINT/SIGTERM; serves GET /health and /ready',
    usage: ['gateway [--cluster nats://HOST:PORT] [--id ID] [--json]'],
    options: {
      cluster: {
        type: 'string',
        value: 'URL',
        description: 'join a cluster of gateways on this NATS JetStream server (wins over cluster.url)',
      },
      id: {
        type: 'string',
        value: 'ID',
        description: "this gateway's id in the cluster (wins over cluster.id; default HOSTNAME-PORT)",
      },
      json,
    },
    details:
      'Listens on gateway.host:gateway.port (default 127.0.0.1:18790). Logs go to ' +
      '$AGENT_HOME/logs/gateway.log.\n' +
      'With --cluster (or cluster.url) the log and the channel accounts are shared through NATS JetStream: ' +
      'each account is run\n' +
      'by one gateway at a time and taken over by another when that one dies (see `tern cluster status`).',
    load: () => import('./gateway.js'),
  },
  {
    name: 'cluster',
    summary:
      "a cluster of gateways: members, which gateway runs which channel account and the heartbeat, each stream's lag",
    usage: ['cluster status [--cluster nats://HOST:PORT] [--json]'],
    options: {
      cluster: { type: 'string', value: 'URL', description: 'the NATS server (wins over cluster.url)' },
      json,
    },
    details: 'Reads JetStream directly: works whether or not a gateway runs on this machine.',
    load: () => import('./cluster.js'),
  },
  {
    name: 'inspect',
    summary: 'every live actor: its machine, current state, the event that moved it, and since when',
    usage: ['inspect [--cluster URL] [--json] [--watch]'],
    options: {
      watch: { type: 'boolean', short: 'w', description: 'keep printing as actors change state' },
      cluster: clusterOption,
      json,
    },
    details:
      "With --cluster (or cluster.url in the config) every gateway's live " +
      'actors, grouped by the gateway and the stream it runs them on.',
    load: () => import('./inspect.js'),
  },
  {
    name: 'cron',
    summary: 'scheduled jobs: list, add, remove, enable, disable',
    usage: [
      'cron list [--json]',
      'cron add (--every DURATION | --at ISO-TIME | --cron "EXPR" [--tz ZONE]) (--deliver TEXT | ' +
        '--message TEXT [--agent ID] | --command CMD) [--channel NAME --chat ID] [--name NAME] [--json]',
      'cron remove ID [--json]',
      'cron enable ID [--json]',
      'cron disable ID [--json]',
    ],
    options: {
      name: { type: 'string', value: 'NAME', description: 'a name for the job (default: the start of its text)' },
      every: { type: 'string', value: 'DURATION', description: 'repeat: seconds (90) or 30s, 10m, 2h, 1d, 1h30m' },
      at: {
        type: 'string',
        value: 'ISO-TIME',
        description: 'once, at this time (e.g. 2026-03-01T09:00:00Z); removed after it ran',
      },
      cron: {
        type: 'string',
        value: 'EXPR',
        description: 'five fields: minute hour day-of-month month day-of-week (or @daily, @hourly, …)',
      },
      tz: { type: 'string', value: 'ZONE', description: 'IANA time zone of --cron (default UTC)' },
      deliver: { type: 'string', value: 'TEXT', description: 'send this text to the chat' },
      message: {
        type: 'string',
        value: 'TEXT',
        description: 'run an agent turn with this message and send the reply to the chat',
      },
      command: {
        type: 'string',
        value: 'CMD',
        description: 'run this shell command through the exec checks (needs tools.exec.enabled)',
      },
      agent: { type: 'string', value: 'ID', description: 'the agent of a --message job (default: the default agent)' },
      channel: { type: 'string', value: 'NAME', description: 'the channel the result goes to (e.g. telegram)' },
      chat: { type: 'string', value: 'ID', description: 'the chat the result goes to (e.g. direct:12345)' },
      json,
    },
    details:
      'Jobs live in the workspace cron/ folder; a running gateway picks up changes within 5 s (× ' +
      'power.poll_interval_multiplier).\n' +
      'A run missed while the gateway was down happens once when it starts. Command jobs time out after ' +
      'tools.cron.exec_timeout_minutes (0: no limit).',
    inGateway: () => true,
    load: () => import('./cron.js'),
  },
  {
    name: 'usage',
    summary: 'tokens and cost of the model answers in the log, by day, agent, session or model',
    usage: ['usage [--since DATE] [--by day|hour|agent|session|model] [--json]'],
    options: {
      since: {
        type: 'string',
        value: 'DATE',
        description: 'only answers since a local date (2026-11-01), an ISO time, or an age (7d, 12h, 30m)',
      },
      by: { type: 'string', value: 'KEY', description: 'one row per day (default), hour, agent, session or model' },
      json,
    },
    details:
      'Cost uses model_list[].pricing {input, output, cached_input, cache_write_input} (US dollars per million ' +
      'tokens), else\n' +
      'the built-in price of well-known models; cache reads and writes are billed at their own prices. Answers ' +
      'of models without a price show as ?.\n' +
      'Days are local days of this machine. Budgets: agents.defaults.budget {daily, monthly} (or per agent in ' +
      'agents.list[]).',
    load: () => import('./usage.js'),
  },
  {
    name: 'skills',
    summary: 'skills: list, search registries, install, remove, show; evolution drafts to accept or reject',
    usage: [
      'skills list [--json]',
      'skills search QUERY [--limit N] [--json]',
      'skills install REF [--version V] [--registry NAME] [--force] [--global] [--json]',
      'skills remove NAME [--global] [--json]',
      'skills show NAME [--json]',
      'skills drafts [--json]',
      'skills accept ID [--json]',
      'skills reject ID [--json]',
    ],
    options: {
      version: {
        type: 'string',
        value: 'V',
        description: 'install this version (ClawHub) or ref (GitHub) instead of the latest',
      },
      registry: {
        type: 'string',
        value: 'NAME',
        description: 'the registry to install from (default: clawhub for a slug, github for owner/repo)',
      },
      force: {
        type: 'boolean',
        description: 'install a skill the registry flags as suspicious, or replace a skill that came from elsewhere',
      },
      global: {
        type: 'boolean',
        description: 'install into or remove from $AGENT_HOME/skills instead of the workspace skills/',
      },
      limit: { type: 'string', value: 'N', description: 'at most N search results (default 10, at most 50)' },
      json,
    },
    details:
      'REF is slug[@version] from a ClawHub-style registry, or owner/repo[/path][@ref] from a GitHub-style ' +
      'one.\n' +
      'Installs are checked before anything lands: moderation flags, the archive size, every entry (no ' +
      'absolute paths, .., links or\n' +
      'devices; at most 1000 files and 100 MB unpacked) and a SKILL.md with name and description. Installing ' +
      'again upgrades.\n' +
      'Drafts are skills evolution wrote from completed turns (evolution.mode draft or apply); accept writes ' +
      'one into skills/\n' +
      '(in apply mode, keeping a backup of a skill it replaces). With a gateway running, the decision is ' +
      'handed to it.',
    inGateway: ([sub]) => sub === 'install' || sub === 'remove',
    load: () => import('./skills.js'),
  },
  {
    name: 'plugins',
    summary: 'plugin packages: list (with their states), install, remove, enable, disable',
    usage: [
      'plugins list [--json]',
      'plugins install NAME|FOLDER [--json]',
      'plugins remove NAME [--json]',
      'plugins enable NAME [--json]',
      'plugins disable NAME [--json]',
    ],
    options: { json },
    details:
      'Subcommands:\n' +
      '  list     every plugin with its state (not enabled, disabled, ready, degraded, failed), the reason and ' +
      "its folder;\n           a running gateway's view, else each enabled plugin is loaded here to see\n" +
      '  install  npm install into $AGENT_HOME/plugins (a registry name, or a local folder, linked); it stays ' +
      '"not enabled"\n  remove   uninstall it and drop plugins.entries.NAME\n' +
      '  enable   set plugins.entries.NAME.enabled to true (add trusted: true by hand to run it in-process)\n' +
      '  disable  set plugins.entries.NAME.enabled to false\n' +
      'Plugins run outside the workspace sandbox; a running gateway loads them when it starts.',
    inGateway: () => true,
    load: () => import('./plugins.js'),
  },
  {
    name: 'pairing',
    summary: 'senders waiting to be let into a channel without allow_from: list, approve CODE, deny CODE',
    usage: ['pairing list [--json]', 'pairing approve CODE [--json]', 'pairing deny CODE [--json]'],
    options: { json },
    details:
      'A channel lets in the senders its settings.allow_from lists (["*"]: everyone). Anyone else who writes ' +
      'to the bot in a\n' +
      'direct chat gets no answer but a one-time code (at most one an hour, good for an hour); approve lets ' +
      'them in for good\n' +
      '(kept in $AGENT_HOME/pairing.json, 0600), deny turns them away. With a gateway running, it takes the ' +
      'decision at once.',
    inGateway: () => true,
    load: () => import('./pairing.js'),
  },
  {
    name: 'version',
    summary: 'print the version',
    usage: ['version'],
    options: {},
    load: () => import('./version.js'),
  },
];
