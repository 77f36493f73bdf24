import * as z from 'zod';
import { lazySchema } from './lazy-schema.js';

/**
 * Correlation keys an event may carry; the log indexes `session` and `turn`. A subagent's events also carry
 * `parent` (the turn that started it) and `task` (its task id), and so do the parent's events about that task.
 */
export const correlationSchema = lazySchema(() =>
  z.object({
    agent: z.string().min(1).optional(),
    session: z.string().min(1).optional(),
    turn: z.string().min(1).optional(),
    parent: z.string().min(1).optional(),
    task: z.string().min(1).optional(),
  }),
);
export type Correlation = z.infer<ReturnType<typeof correlationSchema>>;

/** The part of an envelope the log assigns when it appends. */
export const stampSchema = lazySchema(() =>
  z.object({
    seq: z.number().int().positive(),
    at: z.number().int().nonnegative(),
    /** The gateway that wrote it, in a cluster (#27); absent in a gateway running alone. */
    gateway: z.string().min(1).optional(),
    /**
     * The event stream it was written to, as a cluster-wide view reads it (#27): there `seq` is its place in the
     * cluster log, and this names where it came from. Never written: a writer's own stream is implied.
     */
    stream: z.string().min(1).optional(),
  }),
);
export type Stamp = z.infer<ReturnType<typeof stampSchema>>;
