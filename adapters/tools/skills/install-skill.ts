import * as z from 'zod';
import type { InstallRequest, InstallResult } from '../../skills/installer.js';
import { remoteMayScheduleCommands } from '../cron/remotes.js';
import { ok, ToolError, type Tool } from '../tool.js';

const parameters = z.object({
  slug: z
    .string()
    .trim()
    .min(1)
    .describe("The skill's slug from find_skills (e.g. 'weather'), or owner/repo[/path] for a GitHub registry"),
  version: z.string().trim().min(1).optional().describe('A version (or git ref) to install; default the latest'),
  registry: z
    .string()
    .trim()
    .min(1)
    .optional()
    .describe("The registry to install from (e.g. 'clawhub'); default: clawhub for a slug, github for owner/repo"),
  force: z
    .boolean()
    .optional()
    .describe(
      'Install even though the registry flags the skill as suspicious, ' +
        'or replace a skill that came from elsewhere (default false)',
    ),
});

export interface SkillInstallPort {
  install(request: InstallRequest, signal?: AbortSignal): Promise<InstallResult>;
}

function describe(result: InstallResult): string {
  const head = {
    installed: `Installed skill "${result.name}" v${result.version} from ${result.registry}.`,
    upgraded:
      `Upgraded skill "${result.name}" from v${result.previous_version} ` +
      `to v${result.version} (${result.registry}).`,
    reinstalled: `Reinstalled skill "${result.name}" v${result.version} from ${result.registry}.`,
    unchanged:
      `Skill "${result.name}" v${result.version} from ${result.registry} ` +
      `is already installed; force: true reinstalls it.`,
  }[result.action];
  return [
    ...result.warnings.map((w) => `Warning: ${w}.`),
    head,
    `Location: ${result.path}`,
    ...(result.description ? [`Description: ${result.description}`] : []),
    'It is available from the next message on.',
  ].join('\n');
}

/**
 * The peer runtime's `install_skill`, into the workspace `skills/`. From a remote chat it is refused unless that
 * chat is listed in `tools.skills.install_allowed_remotes`: a skill becomes instructions every later turn follows.
 */
export function installSkillTool(
  installer: () => Promise<SkillInstallPort>,
  allowedRemotes: readonly string[],
): Tool<z.infer<typeof parameters>> {
  return {
    name: 'install_skill',
    description:
      'Install a skill from a registry by its slug (find it with find_skills ' +
      'first). Downloads, checks and unpacks it into the workspace skills/.',
    parameters,
    async execute({ slug, version, registry, force }, context) {
      if (context.remote && !remoteMayScheduleCommands(context.channel, context.chat, allowedRemotes)) {
        throw new ToolError(
          'install_remote_refused',
          `install_skill is refused from the remote chat ${context.channel} ` +
            `${context.chat}: skills are installed from this machine (\`tern skills install ` +
            `${slug}\`), or the chat is listed in tools.skills.install_allowed_remotes`,
        );
      }
      const request: InstallRequest = {
        ref: slug,
        ...(version ? { version } : {}),
        ...(registry ? { registry } : {}),
        force: force === true,
      };
      return ok(describe(await (await installer()).install(request, context.signal)));
    },
  };
}
