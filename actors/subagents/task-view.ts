import type { TaskView } from '../../adapters/tools/subagent/index.js';
import type { SubagentTaskContext } from '../../machines/subagent-task.js';

/** A task as `spawn_status` and `/subagents` show it, read from its machine's snapshot. */
export function taskView(state: string, context: SubagentTaskContext): TaskView {
  const status = state === 'completed' || state === 'failed' || state === 'canceled' ? state : 'running';
  return {
    task_id: context.id,
    status,
    waiting: state === 'waiting',
    agent_id: context.agent,
    ...(context.label ? { label: context.label } : {}),
    task: context.task,
    created_at: context.createdAt,
    ...(context.startedAt !== undefined ? { started_at: context.startedAt } : {}),
    ...(context.endedAt !== undefined ? { ended_at: context.endedAt } : {}),
    ...(status === 'completed' && context.answer ? { result: context.answer } : {}),
    ...(context.reason && status !== 'completed' ? { reason: context.reason } : {}),
  };
}
