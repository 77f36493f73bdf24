import * as z from 'zod/mini';
import {
  bool,
  int,
  limitDollars,
  list,
  nonEmptyText,
  oneOf,
  sessionDimensions,
  temperature,
  text,
  textList,
} from './fields.js';
import { optional, shared, withDefault } from './shared.js';
import { turnProfileSchema } from './turn-profile.js';

export const loopDetectionSchema = z
  .object({
    enabled: withDefault(bool(), false),
    repeat_threshold: withDefault(int(2), 3),
    critical_threshold: withDefault(int(2), 6),
    window_size: withDefault(int(1), 20),
  })
  .check(
    z.superRefine((loop, ctx) => {
      if (loop.critical_threshold <= loop.repeat_threshold) {
        ctx.addIssue({
          code: 'custom',
          path: ['critical_threshold'],
          message:
            `${loop.critical_threshold} must be above repeat_threshold ` +
            `(allowed: whole numbers from ${loop.repeat_threshold + 1})`,
        });
      }
      if (loop.window_size < loop.critical_threshold) {
        ctx.addIssue({
          code: 'custom',
          path: ['window_size'],
          message:
            `${loop.window_size} does not cover critical_threshold ` +
            `(allowed: whole numbers from ${loop.critical_threshold})`,
        });
      }
    }),
  );

/** Spending limits in US dollars per agent, over the local calendar day and month; unset is no limit. */
export const budgetSchema = z.object({
  daily: optional(limitDollars()),
  monthly: optional(limitDollars()),
});

/**
 * `agents.defaults.subagents` (the peer runtime's `subturn`): limits of spawn and subagent, in its names and defaults.
 */
export const subagentLimitsSchema = z.object({
  /** How deep subagents may nest: a turn at this depth cannot start another. */
  max_depth: withDefault(int(1, 10), 3),
  /** Subagents running at once per parent session; more wait for a free slot. */
  max_concurrent: withDefault(int(1, 50), 5),
  /** A subagent still running after this long is stopped and fails. */
  default_timeout_minutes: withDefault(int(1, 1440), 5),
  /** How long a subagent waits for a free slot before it fails. */
  concurrency_timeout_sec: withDefault(int(1, 3600), 30),
});

/** A `model_name`, or the peer runtime's `{primary, fallbacks}`: fallbacks answer when the primary cannot. */
export const agentModelSchema = shared(() =>
  z.union([text(), z.object({ primary: nonEmptyText(), fallbacks: withDefault(textList(), []) })], {
    error: (issue) =>
      `${issue.input === undefined ? 'nothing' : JSON.stringify(issue.input)} is not a model ` +
      `(allowed: a model_name, or {"primary": model_name, "fallbacks": [model_name, …]})`,
  }),
);

/**
 * Recall (`memory_search`, `memory_get`): `scope` `private` shows a chat only its own past turns (a user of a shared
 * bot never recalls another user's chat), `shared` every chat of the agent. Past `inline_max_chars`, the prompt
 * carries the head of MEMORY.md and tells the model to search the rest. `embedding_model` adds vectors.
 */
export const memorySchema = z.object({
  scope: withDefault(oneOf(['private', 'shared'] as const), 'private'),
  inline_max_chars: withDefault(int(200, 1_000_000), 4000),
  /** A `model_list` entry that embeds text: recall then ranks by meaning as well as by words (hybrid). */
  embedding_model: optional(text()),
});

export const agentDefaultsSchema = z.object({
  /** Unset means `<AGENT_HOME>/workspace`; the loader fills it in. */
  workspace: optional(text()).check(z.describe("Folder of the agents' files; empty, <AGENT_HOME>/workspace")),
  restrict_to_workspace: withDefault(
    bool().check(z.describe('Tools may read and write only inside the workspace')),
    true,
  ),
  model: optional(text()).check(z.describe('The model_name agents use unless their entry names another')),
  /** A `model_name` whose entry transcribes voice messages before the turn (`audio/transcriptions`). */
  transcription_model: optional(text()),
  /** A `model_name` whose entry draws images for the `image_generate` tool (`images/generations`). */
  image_model: optional(text()),
  max_tool_iterations: withDefault(
    int(1, 1000).check(z.describe('Most tool calls one turn may make before it must answer')),
    20,
  ),
  /** Sampling temperature sent with every model request; unset leaves the vendor's default. */
  temperature: optional(temperature()).check(z.describe("Sampling temperature; empty, the vendor's default")),
  /** The longest answer asked of the model, in tokens; unset: the vendor's default (4096 on messages-style APIs). */
  max_tokens: optional(int(1, 1_000_000)).check(z.describe('Longest answer asked of the model, in tokens')),
  /** Retries of a model request that failed with a 5xx, a 429 or a dropped connection (the peer runtime's name). */
  max_llm_retries: optional(int(0, 20)),
  /** Seconds before the first retry when every key is resting; each further retry waits twice as long. */
  llm_retry_backoff_secs: optional(int(0, 600)),
  /** The model's context window in tokens: older history is left out of a prompt that would not fit (by estimate). */
  context_window: optional(int(1024, 100_000_000)),
  /** A session's history is summarized once it holds more messages than this (unset: from 60 on). */
  summarize_message_threshold: optional(int(2, 10_000)),
  /** …or once its estimated tokens pass this share of `context_window` (default 75, with a window set). */
  summarize_token_percent: optional(int(1, 100)),
  /** Replies are sent as several messages, parted where the model writes `<|[SPLIT]|>` (it is asked to). */
  split_on_marker: withDefault(bool(), false),
  /** A notice to the chat as each tool runs: its name, the model's words with the call and its arguments. */
  tool_feedback: z.prefault(
    z.object({
      enabled: withDefault(bool(), false),
      /** The arguments shown are cut at this many characters. */
      max_args_length: withDefault(int(1, 100_000), 300),
      /** Each notice a message of its own; false: one notice message, edited as tools run (where it can be). */
      separate_messages: withDefault(bool(), false),
    }),
    {},
  ),
  /**
   * How long one model request may go on (retries and fail-over included) before the turn reports the model
   * unreachable.
   */
  model_budget_seconds: withDefault(int(1, 3600), 150),
  turn_profile: optional(turnProfileSchema),
  loop_detection: z.prefault(loopDetectionSchema, {}),
  /** Each agent's limits, unless its `agents.list[]` entry has its own. */
  budget: optional(budgetSchema),
  subagents: z.prefault(subagentLimitsSchema, {}),
  memory: z.prefault(memorySchema, {}),
});

export const agentEntrySchema = z.looseObject({
  id: nonEmptyText().check(z.describe('Agent id that dispatch rules and bindings name')),
  default: optional(bool()).check(z.describe('Answers messages no dispatch rule sends elsewhere')),
  name: optional(text()).check(z.describe('Display name')),
  model: optional(agentModelSchema()),
  workspace: optional(text()),
  budget: optional(budgetSchema),
  /** The agent's own recall scope; unset: `agents.defaults.memory.scope`. */
  memory: optional(z.object({ scope: optional(oneOf(['private', 'shared'] as const)) })),
  /** Only these skills are offered to the agent (its AGENT.md `skills` wins). */
  skills: optional(textList()),
  subagents: optional(
    z.object({
      /** Agent ids this agent may hand tasks to with spawn; `["*"]` is every agent. */
      allow_agents: optional(textList()),
      /** The model of the subagents this agent starts. */
      model: optional(agentModelSchema()),
    }),
  ),
});

export const dispatchWhenSchema = z.object({
  channel: optional(text()),
  account: optional(text()),
  space: optional(text()),
  chat: optional(text()),
  topic: optional(text()),
  sender: optional(text()),
  mentioned: optional(bool()),
});

export const dispatchRuleSchema = z.object({
  name: nonEmptyText().check(z.describe('Rule name, shown in logs')),
  agent: nonEmptyText().check(z.describe('Agent id that gets the messages this rule matches')),
  when: z.prefault(dispatchWhenSchema, {}),
  session_dimensions: optional(sessionDimensions()),
});

export const agentsSchema = z.object({
  defaults: z.prefault(agentDefaultsSchema, {}),
  list: withDefault(list(agentEntrySchema), []),
  dispatch: z.prefault(z.object({ rules: withDefault(list(dispatchRuleSchema), []) }), {}),
});
