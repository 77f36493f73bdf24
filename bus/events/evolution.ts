import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';

/** Who decided a draft: `cli`, `dashboard`, … */
const by = () => z.string().min(1);

export const evolutionEvents = {
  /**
   * One completed turn that was not a heartbeat, as evolution learns from it (`evolution.enabled`). `shape` is what
   * related turns share (the task's leading verb and the tools used); the cold path groups records by it.
   */
  'learning.recorded': lazySchema(() =>
    z.object({
      task: z.string(),
      shape: z.string(),
      channel: z.string(),
      tools: z.array(z.string()),
      outcome: z.enum(['success', 'failure']),
      /** Why a turn failed: the stop reason or the error. */
      reason: z.string().optional(),
      skills: z.array(z.string()),
      duration_ms: z.number().int().nonnegative(),
      tokens: z.object({ input: z.number().int().nonnegative(), output: z.number().int().nonnegative() }),
    }),
  ),
  /** A candidate skill the model wrote from a cluster of records; a person accepts or rejects it. */
  'skill.drafted': lazySchema(() =>
    z.object({
      draft: z.string(),
      shape: z.string(),
      name: z.string(),
      description: z.string(),
      /** The whole SKILL.md, frontmatter included. */
      content: z.string(),
      /** The `seq` of each learning record it was drafted from. */
      records: z.array(z.number().int().positive()),
      success_ratio: z.number(),
      model_name: z.string(),
    }),
  ),
  /** The cold path tried to draft from a cluster and could not; the cluster waits for new records. */
  'skill.draft_failed': lazySchema(() =>
    z.object({ shape: z.string(), records: z.array(z.number().int().positive()), reason: z.string() }),
  ),
  /** A person's decision, on its way to the evolution actor (dashboard, or the CLI while a gateway holds the log). */
  'skill.decision.requested': lazySchema(() =>
    z.object({ request: z.string(), draft: z.string(), decision: z.enum(['accept', 'reject']), by: by() }),
  ),
  'skill.accepted': lazySchema(() => z.object({ draft: z.string(), by: by(), request: z.string().optional() })),
  'skill.rejected': lazySchema(() => z.object({ draft: z.string(), by: by(), request: z.string().optional() })),
  /** A decision that could not be taken (no such draft, or decided already). */
  'skill.decision.refused': lazySchema(() => z.object({ request: z.string(), draft: z.string(), reason: z.string() })),
  /**
   * An accepted draft written into the workspace `skills/` (`evolution.mode` apply); a replaced skill was backed up.
   */
  'skill.applied': lazySchema(() =>
    z.object({
      draft: z.string(),
      name: z.string(),
      path: z.string(),
      backup: z.string().optional(),
      request: z.string().optional(),
    }),
  ),
  'skill.apply_failed': lazySchema(() =>
    z.object({ draft: z.string(), reason: z.string(), request: z.string().optional() }),
  ),
} as const;
