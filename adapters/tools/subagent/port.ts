import type { ToolContext } from '../tool.js';

/** What the model asks for: the task, a short label for people, and the agent to run it. */
export interface SubagentRequest {
  task: string;
  label?: string;
  agentId?: string;
}

/** `spawn_status`'s four words; a task still waiting for a free slot is `running` with `waiting` set. */
export type TaskStatus = 'running' | 'completed' | 'failed' | 'canceled';

/** One task as `spawn_status` and `/subagents` show it. Times are epoch ms. */
export interface TaskView {
  task_id: string;
  status: TaskStatus;
  /** Not started yet: every slot of its parent's session is busy. */
  waiting: boolean;
  agent_id: string;
  label?: string;
  task: string;
  created_at: number;
  started_at?: number;
  ended_at?: number;
  /** The start of the final answer. */
  result?: string;
  reason?: string;
}

/**
 * The tools' way to the subagent actors (`actors/subagents`). Refusals (depth, an agent not allowed, an unknown
 * task) are `ToolError`s whose message the model reads.
 */
export interface SubagentPort {
  /** Starts the task in the background and returns at once. */
  spawn(request: SubagentRequest, context: ToolContext): TaskView;
  /** Runs the task and resolves with the child's final answer; a failed or canceled task throws. */
  run(request: SubagentRequest, context: ToolContext): Promise<string>;
  /** One task of this conversation, or all of them (oldest first). */
  status(taskId: string | undefined, context: ToolContext): TaskView[];
}
