import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ConfigError, loadConfig, rememberSecrets, type LoadedConfig } from '../../../store/config/index.js';
import {
  writeFirstSetup,
  type FirstSetup,
  type SetupChannel,
  type SetupModel,
} from '../../../store/config/first-setup.js';
import { createStarterFiles } from '../../../store/config/starter.js';
import { agentHome, configPath, credentialsPath } from '../../../store/paths.js';
import { ensureWorkspace } from '../../../store/workspace.js';
import type { CommandContext } from '../command.js';
import { print } from '../command.js';
import type { Check } from '../doctor/check.js';
import { channelChecks, modelChecks } from '../doctor/reach-checks.js';
import { UsageError } from '../errors.js';
import { configUnusable, loadCheckedConfig } from '../load-config.js';
import { CHANNEL_SETUP_FLAGS, channelsFromFlags } from '../onboard-channels.js';
import { modelNameOf, providerChoices, type ProviderChoice } from '../onboard-choices.js';
import { Prompter } from '../prompter.js';

const unusable = (error: ConfigError) =>
  configUnusable(error, 'Fix it (see `tern config validate`) and run `tern onboard` again.');

function workspaceOf(env: NodeJS.ProcessEnv): string {
  try {
    return loadConfig({ env, rewrite: false }).workspace;
  } catch (error) {
    if (error instanceof ConfigError) throw unusable(error);
    throw error;
  }
}

const str = (values: CommandContext['values'], name: string): string | undefined => {
  const value = values[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
};

const SECRET_FLAGS = [
  'api-key',
  'telegram-token',
  'discord-token',
  'slack-token',
  'slack-app-token',
  'feishu-app-secret',
  'dingtalk-client-secret',
  'wecom-secret',
  'qq-app-secret',
  'onebot-token',
  'pico-token',
  'pico-client-token',
  'matrix-token',
  'irc-password',
] as const;

const MATRIX_FLAGS = ['matrix-homeserver', 'matrix-user-id', 'matrix-token'] as const;

const SETUP_FLAGS = [
  'provider',
  'api-key',
  'api-base',
  'model',
  'model-name',
  'telegram-token',
  'discord-token',
  'slack-token',
  'slack-app-token',
  'matrix-homeserver',
  'matrix-user-id',
  'matrix-token',
  'owner',
  ...CHANNEL_SETUP_FLAGS,
];

/** `12345, @alice` → `['12345', '@alice']`: who may talk to the channels set up. */
const ownerList = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

function providerNamed(name: string): ProviderChoice {
  const choice = providerChoices().find((p) => p.name === name);
  if (!choice)
    throw new UsageError(
      `--provider "${name}" is not a provider (allowed: ${providerChoices()
        .map((p) => p.name)
        .join(', ')})`,
    );
  return choice;
}

/** The setup the flags ask for (scripts); every question of the wizard has its flag. */
function setupFromFlags(values: CommandContext['values']): FirstSetup {
  const providerName = str(values, 'provider');
  const setup: FirstSetup = { channels: [] };
  if (providerName) {
    const provider = providerNamed(providerName);
    const model = str(values, 'model') ?? provider.suggestedModel;
    if (!model) throw new UsageError(`--provider ${provider.name} needs --model (the model id the provider serves)`);
    const apiKey = str(values, 'api-key');
    if (provider.needsKey && !apiKey)
      throw new UsageError(
        `--provider ${provider.name} needs --api-key`,
        'Pass the key, or pick a local provider such as ollama.',
      );
    const apiBase = str(values, 'api-base');
    if (provider.apiBase === '' && !apiBase)
      throw new UsageError(`--provider ${provider.name} needs --api-base (it has no default address)`);
    setup.model = {
      model_name: str(values, 'model-name') ?? modelNameOf(model),
      provider: provider.name,
      model,
      ...(apiBase ? { api_base: apiBase } : {}),
      ...(apiKey ? { api_key: apiKey } : {}),
    };
  } else if (['api-key', 'api-base', 'model', 'model-name'].some((flag) => str(values, flag))) {
    throw new UsageError('--api-key, --api-base, --model and --model-name need --provider');
  }
  const telegram = str(values, 'telegram-token');
  const discord = str(values, 'discord-token');
  const slack = str(values, 'slack-token');
  const slackApp = str(values, 'slack-app-token');
  if (telegram) setup.channels.push({ name: 'telegram', secrets: { token: telegram } });
  if (discord) setup.channels.push({ name: 'discord', secrets: { token: discord } });
  if (slack || slackApp) {
    if (!slack || !slackApp)
      throw new UsageError('Slack needs both --slack-token (xoxb-…) and --slack-app-token (xapp-…)');
    setup.channels.push({ name: 'slack', secrets: { token: slack, app_token: slackApp } });
  }
  setup.channels.push(...channelsFromFlags(values));
  const matrix = MATRIX_FLAGS.map((flag) => str(values, flag));
  if (matrix.some(Boolean)) {
    const [homeserver, userId, token] = matrix;
    if (!homeserver || !userId || !token)
      throw new UsageError('Matrix needs --matrix-homeserver, --matrix-user-id and --matrix-token');
    setup.channels.push({
      name: 'matrix',
      secrets: { access_token: token },
      settings: { homeserver, user_id: userId },
    });
  }
  const owner = ownerList(str(values, 'owner'));
  if (owner.length > 0 && setup.channels.length === 0)
    throw new UsageError(
      '--owner needs a channel to let you into (--telegram-token, --discord-token or --slack-token)',
    );
  for (const channel of setup.channels) channel.allowFrom = owner;
  return setup;
}

async function askModel(
  prompt: Prompter,
  out: NodeJS.WritableStream,
  secretsFile: string,
): Promise<SetupModel | undefined> {
  const choices = providerChoices();
  out.write('Providers:\n');
  choices.forEach((p, i) =>
    out.write(
      `  ${String(i + 1).padStart(2)}. ${p.name}${p.local ? ' (runs on your machine or network, no key)' : ''}\n`,
    ),
  );
  const name = await prompt.choose(
    'Provider',
    choices.map((p) => p.name),
    'openai',
  );
  if (!name) return undefined;
  const provider = providerNamed(name);
  let apiKey: string | undefined;
  if (provider.needsKey) {
    apiKey = await prompt.secret(
      `API key for ${provider.name} (stored in ${secretsFile}, mode 600; not shown as you type)`,
    );
    if (!apiKey) out.write('No key given: add it to .security.yml later (model_list: <name>: api_keys: [...]).\n');
  }
  const askBase = provider.local || provider.apiBase === '';
  const apiBase = askBase ? await prompt.ask('Address of its API', provider.apiBase || undefined) : undefined;
  if (askBase && !apiBase) return undefined;
  const model = await prompt.ask('Model id', provider.suggestedModel);
  if (!model) return undefined;
  return {
    model_name: modelNameOf(model),
    provider: provider.name,
    model,
    ...(apiBase && apiBase !== provider.apiBase ? { api_base: apiBase } : {}),
    ...(apiKey ? { api_key: apiKey } : {}),
  };
}

async function askChannels(prompt: Prompter): Promise<SetupChannel[]> {
  const channels: SetupChannel[] = [];
  const telegram = await prompt.secret('Telegram bot token from @BotFather (Enter to skip)');
  if (telegram) channels.push({ name: 'telegram', secrets: { token: telegram } });
  const discord = await prompt.secret('Discord bot token (Enter to skip)');
  if (discord) channels.push({ name: 'discord', secrets: { token: discord } });
  const slack = await prompt.secret('Slack bot token, xoxb-… (Enter to skip)');
  if (slack) {
    const app = await prompt.secret('Slack app-level token for Socket Mode, xapp-…');
    if (app) channels.push({ name: 'slack', secrets: { token: slack, app_token: app } });
  }
  if (channels.length > 0) {
    const owner = ownerList(
      await prompt.ask(
        'Your own user id or @name there, so the bot answers you (Enter: everyone, you too, gets a pairing code first)',
      ),
    );
    for (const channel of channels) channel.allowFrom = owner;
  }
  return channels;
}

/** The wizard on a terminal: a provider from the catalogue, its key (unseen), the model, optional chat tokens. */
async function askSetup(context: CommandContext): Promise<FirstSetup> {
  const prompt = new Prompter(process.stdin, context.stdout);
  try {
    context.stdout.write('\nA model to talk to (Ctrl-D skips the rest):\n');
    const model = await askModel(prompt, context.stdout, credentialsPath(context.env));
    const channels = model ? await askChannels(prompt) : [];
    return { ...(model ? { model } : {}), channels };
  } finally {
    prompt.close();
  }
}

/** Says what works: one question to the model, one authenticated call per channel. */
async function tryIt(loaded: LoadedConfig, setup: FirstSetup): Promise<Check[]> {
  const asked = new Set(setup.channels.map((c) => c.name));
  const models = setup.model
    ? (await modelChecks(loaded)).filter((c) => c.name === `model ${setup.model!.model_name}`)
    : [];
  const channels = (await channelChecks(loaded)).filter((c) => asked.has(c.name.replace(/^channel /, '')));
  return [...models, ...channels];
}

/** Who the channels just set up answer, and how anyone else gets in. */
function accessLine(owner: readonly string[]): string {
  if (owner.length === 0) {
    return (
      'No one is listed in allow_from yet: whoever writes to the bot, you too, gets no ' +
      'answer but a pairing code, and `tern pairing approve CODE` lets them in.'
    );
  }
  return (
    `The bot answers ${owner.join(', ')} (allow_from); a stranger gets a ` +
    `pairing code, and \`tern pairing approve CODE\` lets them in.`
  );
}

const MARK: Record<Check['status'], string> = { ok: '✓', fixed: '✓', warn: '!', error: '✗', skipped: '-' };

function shown(home: string, path: string): string {
  const inHome = relative(home, path);
  return inHome.startsWith('..') ? path : inHome;
}

export async function run(context: CommandContext): Promise<number> {
  const { env, json, stdout, values } = context;
  const home = agentHome(env);
  const interactive =
    process.stdin.isTTY === true &&
    process.stdout.isTTY === true &&
    !json &&
    !SETUP_FLAGS.some((flag) => str(values, flag));
  // Keys given as flags are masked in everything printed from here on, whatever quotes them back.
  rememberSecrets(SECRET_FLAGS.flatMap((flag) => str(values, flag) ?? []));
  const flagged = setupFromFlags(values);
  const created = createStarterFiles(env);
  const workspace = workspaceOf(env);
  const hadWorkspace = existsSync(workspace);
  created.push(...ensureWorkspace(workspace).map((entry) => join(workspace, entry)));
  if (!json) {
    if (created.length === 0)
      print(stdout, `Nothing to create: ${home} and the workspace ${workspace} are already set up.`);
    else {
      print(stdout, `Created${hadWorkspace ? '' : ` (workspace ${workspace})`}:`);
      for (const path of created) print(stdout, `  ${shown(home, path)}`);
    }
  }
  const setup = interactive ? await askSetup(context) : flagged;
  rememberSecrets([setup.model?.api_key ?? '', ...setup.channels.flatMap((c) => Object.values(c.secrets))]);
  let written: string[];
  try {
    written = writeFirstSetup(configPath(env), env, setup);
  } catch (error) {
    if (error instanceof ConfigError) throw unusable(error);
    throw error;
  }
  const tests =
    written.length > 0 && values['no-test'] !== true
      ? await tryIt(loadCheckedConfig({ env, rewrite: false }), setup)
      : [];
  const failed = tests.some((t) => t.status === 'error');
  if (json) {
    print(stdout, JSON.stringify({ ok: !failed, home, workspace, created, written, tests }));
    return failed ? 1 : 0;
  }
  if (written.length > 0)
    print(
      stdout,
      `Saved ${setup.model ? `model ${setup.model.model_name}` : ''}` +
        `${setup.model && setup.channels.length > 0 ? ' and ' : ''}${setup.channels.map((c) => c.name).join(', ')} ` +
        `(keys and tokens in ${shown(home, credentialsPath(env))}).`,
    );
  for (const test of tests) print(stdout, `${MARK[test.status]} ${test.name}: ${test.message}`);
  if (written.length === 0)
    print(
      stdout,
      'Existing files are never overwritten. Next: add a model to model_list ' +
        'in config.json, its key to .security.yml, then run `tern doctor`.',
    );
  else if (failed)
    print(stdout, 'What failed is saved as given: fix it in config.json or .security.yml, then run `tern doctor`.');
  else
    print(
      stdout,
      `Next: \`tern agent\` to chat here` +
        `${setup.channels.length > 0 ? ', `tern gateway` to answer on the channels' : ''}` +
        `, \`tern doctor\` to check everything.`,
    );
  if (written.length > 0 && setup.channels.length > 0) print(stdout, accessLine(setup.channels[0]?.allowFrom ?? []));
  return failed ? 1 : 0;
}
