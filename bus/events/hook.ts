import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { chatMessageSchema, toolCallSchema } from './provider.js';

/** The places in a turn where interceptors and approvers are asked, in the peer runtime's names. */
export const HOOK_POINTS = ['before_llm', 'after_llm', 'before_tool', 'after_tool', 'approve_tool'] as const;
export type HookPoint = (typeof HOOK_POINTS)[number];

/** What a hook may decide; an approver decides `continue` (approved) or `deny_tool` (denied). */
export const HOOK_ACTIONS = ['continue', 'modify', 'respond', 'deny_tool', 'abort_turn', 'hard_abort'] as const;
export type HookAction = (typeof HOOK_ACTIONS)[number];

/**
 * A decision as the turn applies it: the action, the reason the model or the user reads, and for `modify` and
 * `respond` the new values (only the fields of the point: a request before the model call, its answer after it,
 * the call before a tool runs, the result after it or instead of it).
 */
export const hookDecisionSchema = lazySchema(() =>
  z.object({
    action: z.enum(HOOK_ACTIONS),
    reason: z.string().optional(),
    request: z
      .object({
        model: z.string().optional(),
        system: z.string().optional(),
        messages: z.array(chatMessageSchema()).optional(),
      })
      .optional(),
    answer: z.object({ text: z.string().optional(), tool_calls: z.array(toolCallSchema()).optional() }).optional(),
    call: z.object({ name: z.string().optional(), arguments: z.record(z.string(), z.unknown()).optional() }).optional(),
    result: z.object({ ok: z.boolean().optional(), content: z.string().optional() }).optional(),
  }),
);
export type HookDecision = z.infer<ReturnType<typeof hookDecisionSchema>>;

export const hookEvents = {
  /**
   * One hook's decision at one point of a turn, in the order applied: replay shows why a call was denied or changed,
   * and rerun applies these instead of asking the hooks again. `call_id` names the tool call, `iteration` the model
   * call.
   */
  'hook.decided': lazySchema(() =>
    hookDecisionSchema().extend({
      hook: z.string(),
      point: z.enum(HOOK_POINTS),
      call_id: z.string().optional(),
      iteration: z.number().int().nonnegative().optional(),
    }),
  ),
  /** A tool call waits for the user: `prompt` is what the chat shows, answered by `/approve <id>` or `/deny <id>`. */
  'approval.requested': lazySchema(() =>
    z.object({
      approval_id: z.string(),
      tool: z.string(),
      call_id: z.string(),
      prompt: z.string(),
      channel: z.string(),
      chat: z.string(),
      timeout_ms: z.number().int().positive(),
    }),
  ),
  /** The answer to an approval: from the user, or given when no one answered in time or nowhere could ask. */
  'approval.answered': lazySchema(() =>
    z.object({
      approval_id: z.string(),
      approved: z.boolean(),
      by: z.enum(['user', 'timeout', 'unaskable', 'turn_ended']),
      sender: z.string().optional(),
      reason: z.string().optional(),
    }),
  ),
  /** Messages that were waiting in a session when a hook decided `hard_abort`: not run. */
  'message.dropped': lazySchema(() => z.object({ message_id: z.string(), reason: z.string() })),
} as const;
