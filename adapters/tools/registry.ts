import * as z from 'zod';
import type { ToolSpec } from '../providers/provider.js';
import type { FilterOptions } from './options.js';
import { filterResult } from './output/output-filter.js';
import { isPolicyRefusal } from './sandbox/refusals.js';
import { fail, ToolError, type Tool, type ToolContext, type ToolResult } from './tool.js';

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(arguments)'}: ${issue.message}`)
    .join('; ');
}

/**
 * The tools one agent exposes. `execute` is the only way a turn runs a tool: arguments are parsed
 * at this edge, every failure becomes a result the model reads, and every result passes the output
 * filter, so no tool can forget to.
 */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool<unknown>>();
  /** Counts registrations: a plugin can add tools after agents were built, and caches of the names compare it. */
  revision = 0;

  constructor(
    private readonly filter: FilterOptions,
    private readonly workspace: string,
    private readonly specCache = new Map<string, ToolSpec>(),
    /** Names switched off in the config (`tools.<tool>.enabled: false`): registering one does nothing. */
    private readonly disabled: ReadonlySet<string> = new Set(),
  ) {}

  /**
   * This registry plus tools known only for one turn (MCP tools, discovery search), under the same output
   * filter; the cached specs of the shared tools are reused.
   */
  overlay(extra: readonly Tool<unknown>[]): ToolRegistry {
    const combined = new ToolRegistry(this.filter, this.workspace, this.specCache, this.disabled);
    for (const tool of [...this.tools.values(), ...extra]) combined.tools.set(tool.name, tool);
    return combined;
  }

  register<P>(tool: Tool<P>): this {
    if (this.disabled.has(tool.name)) return this;
    this.revision++;
    this.tools.set(tool.name, tool as Tool<unknown>);
    this.specCache.delete(tool.name);
    return this;
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  list(): Tool[] {
    return [...this.tools.values()];
  }

  specs(): ToolSpec[] {
    return this.list().map((tool) => this.specOf(tool));
  }

  // Turning a zod schema into JSON schema costs more than the rest of a turn, and a tool's schema never
  // changes, so it is done once. A tool that brings its own JSON schema (MCP) is passed through as is.
  private specOf(tool: Tool<unknown>): ToolSpec {
    if ('jsonSchema' in tool && tool.jsonSchema && typeof tool.jsonSchema === 'object') {
      return { name: tool.name, description: tool.description, parameters: tool.jsonSchema as Record<string, unknown> };
    }
    const cached = this.specCache.get(tool.name);
    if (cached) return cached;
    const spec = {
      name: tool.name,
      description: tool.description,
      parameters: z.toJSONSchema(tool.parameters, { io: 'input' }) as Record<string, unknown>,
    };
    this.specCache.set(tool.name, spec);
    return spec;
  }

  /** `refused` hears of a refusal by the sandbox or the exec guard (policy, which hooks may not change). */
  async execute(
    name: string,
    rawArgs: unknown,
    context: ToolContext,
    refused?: (code: string) => void,
  ): Promise<ToolResult> {
    return filterResult(await this.run(name, rawArgs, context, refused), this.filter, this.workspace);
  }

  private async run(
    name: string,
    rawArgs: unknown,
    context: ToolContext,
    refused: ((code: string) => void) | undefined,
  ): Promise<ToolResult> {
    const tool = this.tools.get(name);
    if (!tool) return fail(`unknown tool "${name}"; available: ${[...this.tools.keys()].join(', ')}`);
    const parsed = tool.parameters.safeParse(rawArgs ?? {});
    if (!parsed.success) return fail(`invalid arguments for ${name}: ${describeIssues(parsed.error)}`);
    try {
      return await tool.execute(parsed.data, context);
    } catch (error) {
      if (error instanceof ToolError) {
        if (isPolicyRefusal(error.code)) refused?.(error.code);
        return fail(error.message);
      }
      return fail(`${name} failed: ${(error as Error)?.message ?? String(error)}`);
    }
  }
}
