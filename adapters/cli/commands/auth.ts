import { createInterface } from 'node:readline';
import { openCopilot, type CopilotConnectMode } from '../../providers/copilot-connection.js';
import { maskKey } from '../../providers/mask-key.js';
import { antigravityLogin } from '../../providers/oauth/antigravity-login.js';
import { ANTIGRAVITY } from '../../providers/oauth/antigravity-session.js';
import { googleEndpoints } from '../../providers/oauth/google.js';
import { openBrowser } from '../../launcher/open-browser.js';
import { agentHome } from '../../../store/paths.js';
import {
  ProviderTokenFileError,
  providerTokensPath,
  readProviderLogins,
  removeProviderLogin,
  writeProviderLogin,
  type ProviderLogin,
} from '../../../store/provider-tokens.js';
import { print, type CommandContext } from '../command.js';
import { CliError, subcommandError, UsageError } from '../errors.js';

const PROVIDERS = [ANTIGRAVITY, 'github-copilot'] as const;
type AuthProvider = (typeof PROVIDERS)[number];
const COPILOT_FIX =
  'Start it with `copilot --headless --port 4321`, or pass --api-base HOST:PORT or --connect-mode stdio.';

function providerOf(context: CommandContext, required: boolean): AuthProvider | undefined {
  const given = context.values.provider;
  if (given === undefined && !required) return undefined;
  // The peer runtime's name for the same provider.
  const name = given === 'google-antigravity' ? ANTIGRAVITY : given;
  if (typeof name === 'string' && (PROVIDERS as readonly string[]).includes(name)) return name as AuthProvider;
  throw new UsageError(
    given === undefined ? 'auth needs --provider' : `unknown provider "${String(given)}"`,
    `Allowed: --provider ${PROVIDERS.join(' | ')}.`,
  );
}

/** The next line typed on stdin (the pasted redirect URL). */
function readLine(): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: process.stdin });
    lines.once('close', () => reject(new Error('input ended before a URL was pasted')));
    lines.once('line', (line) => {
      // Settled first: closing emits `close` at once.
      resolve(line);
      lines.close();
    });
  });
}

/** A browser can open where there is a display (and the user did not ask for the paste-back). */
function canOpenBrowser(context: CommandContext): boolean {
  if (context.values['no-browser'] === true) return false;
  if (process.platform === 'darwin' || process.platform === 'win32') return true;
  return Boolean(context.env.DISPLAY || context.env.WAYLAND_DISPLAY);
}

const expiry = (login: ProviderLogin): string =>
  login.expires_at === undefined ? 'no expiry given' : new Date(login.expires_at).toISOString();

function describe(provider: string, login: ProviderLogin) {
  return {
    provider,
    account: login.email ?? null,
    project: login.project_id ?? null,
    expires_at: login.expires_at === undefined ? null : new Date(login.expires_at).toISOString(),
    access_token: maskKey(login.access_token),
    refreshable: login.refresh_token !== undefined,
    models: login.models ?? [],
  };
}

async function loginAntigravity(context: CommandContext, home: string): Promise<number> {
  const browser = canOpenBrowser(context);
  let login: ProviderLogin;
  try {
    login = await antigravityLogin(googleEndpoints(context.env), {
      print: (line) => print(context.stderr, line),
      readLine,
      ...(browser ? { openBrowser: (url: string) => openBrowser(url) } : {}),
      signal: context.signal,
    });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new CliError(
      typeof code === 'string' ? code : 'oauth_failed',
      'login to antigravity failed',
      (error as Error).message,
      'Run `tern auth login --provider antigravity` again.',
    );
  }
  writeProviderLogin(home, ANTIGRAVITY, login);
  if (context.json) print(context.stdout, JSON.stringify(describe(ANTIGRAVITY, login)));
  else {
    print(context.stdout, `logged in to antigravity as ${login.email ?? '(e-mail not shared)'}`);
    print(context.stdout, `project: ${login.project_id ?? '(none yet)'}; token expires ${expiry(login)}`);
    if (login.models) print(context.stdout, `models: ${login.models.join(', ')}`);
  }
  return 0;
}

/** The Copilot CLI holds the GitHub sign-in: ask its server who is signed in. */
async function copilotStatus(context: CommandContext): Promise<number> {
  const mode = (context.values['connect-mode'] ?? 'grpc') as string;
  if (mode !== 'grpc' && mode !== 'stdio')
    throw new UsageError(`unknown connect mode "${mode}"`, 'Allowed: --connect-mode grpc | stdio.');
  const base = typeof context.values['api-base'] === 'string' ? context.values['api-base'] : 'localhost:4321';
  let status: { isAuthenticated?: boolean; login?: string; authType?: string; statusMessage?: string };
  try {
    const link = await openCopilot(mode as CopilotConnectMode, base);
    try {
      status = await link.rpc.sendRequest('auth.getStatus', {});
    } finally {
      link.close();
    }
  } catch (error) {
    throw new CliError('copilot_unreachable', 'cannot ask the Copilot CLI', (error as Error).message, COPILOT_FIX);
  }
  const signedIn = status.isAuthenticated === true;
  if (context.json)
    print(
      context.stdout,
      JSON.stringify({ provider: 'github-copilot', signed_in: signedIn, account: status.login ?? null }),
    );
  else
    print(
      context.stdout,
      signedIn
        ? `github-copilot: signed in to the Copilot CLI as ${status.login ?? '(unknown)'}`
        : `github-copilot: the Copilot CLI is not signed in (${status.statusMessage ?? 'run `copilot`, then /login'})`,
    );
  return signedIn ? 0 : 1;
}

function status(context: CommandContext, home: string): number {
  const logins = Object.entries(readProviderLogins(home)).map(([name, login]) => describe(name, login));
  if (context.json) {
    print(context.stdout, JSON.stringify({ file: providerTokensPath(home), logins }));
    return 0;
  }
  if (logins.length === 0) print(context.stdout, 'no provider logins; run `tern auth login --provider antigravity`');
  for (const login of logins)
    print(
      context.stdout,
      `${login.provider}: ${login.account ?? '(e-mail not shared)'}, token ${login.access_token}, ` +
        `expires ${login.expires_at ?? 'never said'}${login.project ? `, project ${login.project}` : ''}`,
    );
  return 0;
}

export async function run(context: CommandContext): Promise<number> {
  try {
    return await subcommand(context);
  } catch (error) {
    if (!(error instanceof ProviderTokenFileError)) throw error;
    throw new CliError(
      error.code,
      'the provider token file cannot be read',
      error.message.replace(/; run .*$/, ''),
      'Run `tern auth login --provider antigravity` to write it afresh.',
    );
  }
}

async function subcommand(context: CommandContext): Promise<number> {
  const [sub] = context.positionals;
  const home = agentHome(context.env);
  switch (sub) {
    case 'login': {
      const provider = providerOf(context, true);
      return provider === ANTIGRAVITY ? loginAntigravity(context, home) : copilotStatus(context);
    }
    case 'logout': {
      const provider = providerOf(context, true)!;
      if (provider === 'github-copilot') {
        print(context.stdout, 'Tern keeps no GitHub tokens: sign out in the Copilot CLI (`copilot`, then /logout).');
        return 0;
      }
      const removed = removeProviderLogin(home, provider);
      print(context.stdout, removed ? `logged out of ${provider}` : `not logged in to ${provider}`);
      return 0;
    }
    case 'status':
      return providerOf(context, false) === 'github-copilot' ? copilotStatus(context) : status(context, home);
    default:
      throw subcommandError('auth', sub, ['login', 'logout', 'status']);
  }
}
