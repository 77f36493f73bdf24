// The prompt caches of the vendors, as loopback servers see them. Messages: explicit breakpoints (`cache_control`) on
// tools, system blocks and message blocks, in that order; a breakpoint writes the prefix through its block; a request
// reads the longest written prefix that ends at most 20 blocks before one of its breakpoints; more than 4 breakpoints
// are refused with the vendor's 400. Chat completions: the longest byte prefix shared with an earlier request. Tokens
// are counted as bytes / 4; the vendors' minimum cacheable lengths are left out, so short test prompts cache too.
import { json, type RecordedRequest, type ScriptedReply } from './vendor-server.js';

const LOOKBACK = 20;
export const MAX_BREAKPOINTS = 4;

type Block = Record<string, unknown>;
const tokens = (text: string): number => Math.ceil(Buffer.byteLength(text) / 4);

/**
 * Every block in cache order, `cache_control` taken off (a marked and an unmarked block are the same prompt), and where
 * the marks were.
 */
export function cacheBlocks(body: Record<string, unknown>): { blocks: string[]; marks: number[] } {
  const blocks: string[] = [];
  const marks: number[] = [];
  const add = (where: string, block: Block): void => {
    const { cache_control: mark, ...rest } = block;
    if (mark !== undefined) marks.push(blocks.length);
    blocks.push(JSON.stringify([where, rest]));
  };
  for (const tool of (body.tools as Block[] | undefined) ?? []) add('tool', tool);
  const system = body.system;
  if (typeof system === 'string') add('system', { type: 'text', text: system });
  else for (const block of (system as Block[] | undefined) ?? []) add('system', block);
  for (const message of (body.messages as Array<{ role: string; content: string | Block[] }> | undefined) ?? []) {
    const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    for (const block of content) add(message.role, block);
  }
  return { blocks, marks };
}

/**
 * The cache paths of a messages request's breakpoints, in order (`tools[2]`, `system[0]`, `messages[3].content[0]`).
 */
export function breakpointPaths(body: Record<string, unknown>): string[] {
  const paths: string[] = [];
  const marked = (block: unknown): boolean => typeof block === 'object' && block !== null && 'cache_control' in block;
  ((body.tools as Block[] | undefined) ?? []).forEach((tool, i) => marked(tool) && paths.push(`tools[${i}]`));
  if (Array.isArray(body.system)) body.system.forEach((block, i) => marked(block) && paths.push(`system[${i}]`));
  ((body.messages as Array<{ content: unknown }> | undefined) ?? []).forEach((message, m) => {
    if (Array.isArray(message.content))
      message.content.forEach((block, b) => marked(block) && paths.push(`messages[${m}].content[${b}]`));
  });
  return paths;
}

/** Tokens of the prefix through block `end` (inclusive). */
const prefixTokens = (blocks: string[], end: number): number => tokens(blocks.slice(0, end + 1).join(''));

/** A messages-family cache: `answer` turns a request into the usage the vendor would report, or its 400. */
export function messagesPromptCache() {
  const written = new Set<string>();
  return {
    /** Usage counts for this request, writing its breakpoints; `undefined` when the vendor would refuse it. */
    usage(
      request: RecordedRequest,
    ):
      | { input_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number }
      | { error: string } {
      const body = JSON.parse(request.body.toString()) as Record<string, unknown>;
      const { blocks, marks } = cacheBlocks(body);
      if (marks.length > MAX_BREAKPOINTS)
        return {
          error: `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${marks.length}.`,
        };
      const key = (end: number): string => blocks.slice(0, end + 1).join('\n');
      let read = -1;
      for (const mark of marks) {
        for (let end = mark; end >= Math.max(0, mark - LOOKBACK); end--) {
          if (written.has(key(end))) {
            read = Math.max(read, end);
            break;
          }
        }
      }
      for (const mark of marks) written.add(key(mark));
      const total = tokens(blocks.join(''));
      const cached = read >= 0 ? prefixTokens(blocks, read) : 0;
      const last = marks.at(-1);
      const creation = last !== undefined && last > read ? prefixTokens(blocks, last) - cached : 0;
      return {
        input_tokens: total - cached - creation,
        cache_read_input_tokens: cached,
        cache_creation_input_tokens: creation,
      };
    },
  };
}

/** The vendor's refusal of too many breakpoints. */
export function tooManyBreakpoints(message: string): ScriptedReply {
  return json({ type: 'error', error: { type: 'invalid_request_error', message } }, 400);
}

/** Bytes two request bodies share from their start. */
export function commonPrefix(a: Buffer, b: Buffer): number {
  const length = Math.min(a.length, b.length);
  let i = 0;
  while (i < length && a[i] === b[i]) i++;
  return i;
}

/** A chat-completions cache: a request reads the longest byte prefix it shares with any earlier one. */
export function chatCompletionsPromptCache() {
  const earlier: Buffer[] = [];
  return {
    usage(request: RecordedRequest): {
      prompt_tokens: number;
      completion_tokens: number;
      prompt_tokens_details: { cached_tokens: number };
    } {
      const shared = Math.max(0, ...earlier.map((body) => commonPrefix(body, request.body)));
      earlier.push(request.body);
      return {
        prompt_tokens: Math.ceil(request.body.length / 4),
        completion_tokens: 5,
        prompt_tokens_details: { cached_tokens: Math.floor(shared / 4) },
      };
    },
  };
}
