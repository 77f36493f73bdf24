import * as z from 'zod';
import type { HookPoint } from '../../bus/index.js';
import { helloModes, RpcHook } from '../hooks/process-hook.js';
import { SupervisedChild, type ChildLog } from '../hooks/supervised-child.js';
import { fail, ok, type ToolResult } from '../tools/tool.js';
import { loadTimeout, PluginLoadError, type PluginCommand, type PluginParts, type PluginToLoad } from './api.js';
import { pluginTool, PluginToolError, type PluginTool } from './plugin-tool.js';

/** A plugin tool call is cut off after this, whatever the plugin does meanwhile. */
const TOOL_CALL_MS = 120_000;

const helloSchema = z.looseObject({
  tools: z
    .array(
      z.looseObject({
        name: z.string(),
        description: z.string(),
        parameters: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .default([]),
  commands: z
    .array(z.looseObject({ name: z.string().regex(/^[a-z][a-z0-9_]{0,31}$/), description: z.string().optional() }))
    .default([]),
});
type Hello = z.infer<typeof helloSchema>;

const toolAnswer = z.looseObject({ for_llm: z.string().optional(), is_error: z.boolean().optional() });
const commandAnswer = z.looseObject({ reply: z.string() });

export interface ChildPluginOptions {
  log: ChildLog;
  processEnv?: NodeJS.ProcessEnv;
  /** Once loaded: the process went down (`problem`) or is back (`undefined`). */
  onStatus?: (problem: string | undefined) => void;
}

/**
 * An untrusted plugin, run as a child process (`node <entry>` in its folder) that speaks the process-hook protocol
 * with a few methods more: `plugin.hello {name, version, config, data_dir, capabilities, modes}` answered with the
 * tools and commands it offers; `plugin.tool {tool, arguments, context}` answered `{for_llm, is_error}`;
 * `plugin.command {command, args, context}` answered `{reply}`; and the `hook.*` methods for the points its manifest
 * declares. It is restarted with backoff when it dies. Channels need a trusted plugin.
 */
export async function loadChildPlugin(plugin: PluginToLoad, options: ChildPluginOptions): Promise<PluginParts> {
  const intercept = (plugin.capabilities.includes('hooks') ? (plugin.hooks?.intercept ?? []) : []) as HookPoint[];
  const observe = plugin.capabilities.includes('hooks') ? plugin.hooks?.observe : undefined;
  let loaded = false;
  // Until it has answered `plugin.hello` once, a plugin that goes down is failed at once, not restarted: a syntax
  // error would otherwise be started again and again until the time limit, on every run.
  let failStart: (reason: string) => void = () => {};
  const wentDown = new Promise<never>((_, reject) => {
    failStart = (reason) => reject(new PluginLoadError('start_failed', reason));
  });
  wentDown.catch(() => undefined);
  const child = new SupervisedChild<Hello>(
    {
      name: `plugin ${plugin.name}`,
      command: [process.execPath, plugin.entry],
      dir: plugin.dir,
      env: { TERN_PLUGIN_NAME: plugin.name, TERN_PLUGIN_DATA_DIR: plugin.dataDir },
    },
    {
      handshake: async (rpc, signal) =>
        helloSchema.parse(
          await rpc.request(
            'plugin.hello',
            {
              name: plugin.name,
              version: 1,
              config: plugin.config,
              data_dir: plugin.dataDir,
              capabilities: plugin.capabilities,
              modes: helloModes(intercept, observe !== undefined),
            },
            signal,
          ),
        ),
      // The first start is bounded by the load limit below, with its own reason; this bounds the restarts after it.
      handshakeTimeoutMs: 2 * plugin.timeoutMs,
      log: options.log,
      processEnv: options.processEnv,
      onDown: (reason) => {
        if (loaded) options.onStatus?.(`its process went down (${reason}); restarting it`);
        else failStart(reason);
      },
      onReady: () => loaded && options.onStatus?.(undefined),
    },
  );
  child.start();
  let hello: Hello;
  try {
    hello = (await Promise.race([child.ready(AbortSignal.timeout(plugin.timeoutMs)), wentDown])).hello;
  } catch (error) {
    await child.stop();
    if (error instanceof PluginLoadError) throw error;
    throw loadTimeout('it did not answer plugin.hello', plugin.timeoutMs);
  }
  loaded = true;
  const problems: string[] = [];
  const call = async (method: string, params: unknown, signal: AbortSignal): Promise<unknown> => {
    const { rpc } = await child.ready(signal);
    return rpc.request(method, params, signal);
  };
  const tools: PluginTool[] = [];
  if (hello.tools.length > 0 && !plugin.capabilities.includes('tools'))
    problems.push('it offers tools, but its manifest does not ask for "tools"');
  else {
    for (const spec of hello.tools) {
      try {
        tools.push(
          pluginTool(plugin.name, spec, async (args, context): Promise<ToolResult> => {
            const { signal, ...where } = context;
            const answer = toolAnswer.safeParse(
              await call(
                'plugin.tool',
                { tool: spec.name, arguments: args, context: where },
                AbortSignal.any([signal, AbortSignal.timeout(TOOL_CALL_MS)]),
              ),
            );
            if (!answer.success)
              return fail(`plugin ${plugin.name} answered ${spec.name} with something that is not a tool result`);
            return answer.data.is_error ? fail(answer.data.for_llm ?? '') : ok(answer.data.for_llm ?? '');
          }),
        );
      } catch (error) {
        if (!(error instanceof PluginToolError)) throw error;
        problems.push(error.message);
      }
    }
  }
  const commands: PluginCommand[] = [];
  if (hello.commands.length > 0 && !plugin.capabilities.includes('commands'))
    problems.push('it offers commands, but its manifest does not ask for "commands"');
  else {
    for (const spec of hello.commands) {
      commands.push({
        name: spec.name,
        description: spec.description ?? '',
        run: async (args, context) =>
          commandAnswer.parse(
            await call('plugin.command', { command: spec.name, args, context }, AbortSignal.timeout(TOOL_CALL_MS)),
          ).reply,
      });
    }
  }
  if (plugin.capabilities.includes('channels'))
    problems.push(`channels need a trusted plugin (set plugins.entries.${plugin.name}.trusted to true)`);
  const hook =
    intercept.length > 0 || observe !== undefined
      ? new RpcHook(plugin.name, plugin.priority, child as SupervisedChild<unknown>, intercept, observe)
      : undefined;
  return { tools, commands, channels: [], hook, problems, close: () => child.stop() };
}
