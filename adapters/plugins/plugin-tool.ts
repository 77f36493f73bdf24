import * as z from 'zod';
import { fail, ok, type Tool, type ToolResult } from '../tools/tool.js';
import type { PluginToolContext } from './api.js';

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** A plugin tool as the registry runs it; `jsonSchema` is what the model is sent. */
export interface PluginTool extends Tool<Record<string, unknown>> {
  plugin: string;
  jsonSchema: Record<string, unknown>;
}

/** A tool spec that cannot be registered; the plugin is degraded with this as the reason. */
export class PluginToolError extends Error {
  readonly code = 'plugin_tool_invalid';
  constructor(message: string) {
    super(message);
    this.name = 'PluginToolError';
  }
}

/** A plugin's answer as a tool result: text, `{ ok, content }`, or anything else as JSON. */
export function resultOf(answer: unknown): ToolResult {
  if (typeof answer === 'string') return ok(answer);
  if (typeof answer === 'object' && answer !== null && typeof (answer as { content?: unknown }).content === 'string') {
    const { ok: good, content } = answer as { ok?: unknown; content: string };
    return good === false ? fail(content) : ok(content);
  }
  return ok(JSON.stringify(answer ?? null));
}

/**
 * A plugin's tool. Arguments are checked against its JSON schema at the registry's edge (zod built from the
 * schema); the description says where it comes from, as MCP tools' do.
 */
export function pluginTool(
  plugin: string,
  spec: { name: unknown; description: unknown; parameters?: unknown },
  run: (args: Record<string, unknown>, context: PluginToolContext) => Promise<ToolResult>,
): PluginTool {
  if (typeof spec.name !== 'string' || !TOOL_NAME.test(spec.name))
    throw new PluginToolError(
      `tool name ${JSON.stringify(spec.name)} is not allowed (allowed: 1 to 64 of A-Z a-z 0-9 _ -)`,
    );
  if (typeof spec.description !== 'string' || spec.description.trim() === '')
    throw new PluginToolError(`tool ${spec.name} needs a description`);
  const schema = (spec.parameters ?? { type: 'object', properties: {} }) as Record<string, unknown>;
  let parameters: z.ZodType<Record<string, unknown>>;
  try {
    parameters = z.fromJSONSchema(schema) as z.ZodType<Record<string, unknown>>;
  } catch (error) {
    throw new PluginToolError(
      `tool ${spec.name}: its parameters are not a JSON schema Tern can check (${(error as Error).message})`,
    );
  }
  return {
    name: spec.name,
    plugin,
    description: `${spec.description}\n(Plugin tool from ${plugin}.)`,
    parameters,
    jsonSchema: schema,
    execute: (args, context) =>
      run(args, {
        agent: context.agent,
        session: context.session,
        turn: context.turn,
        channel: context.channel,
        chat: context.chat,
        signal: context.signal,
      }),
  };
}
