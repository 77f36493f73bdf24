import type { SubagentTaskContext } from '../../machines/subagent-task.js';
import type { ChildMessage } from './host.js';

/** What the child reads as its one user message: who it works for, where its answer goes, and the task. */
function framed(task: SubagentTaskContext): string {
  const named = task.label ? ` ("${task.label}")` : '';
  const report =
    task.mode === 'spawn'
      ? 'You work in the background. When you are done, report the result to the user with the message tool.'
      : 'Your final answer is returned to that agent as the result of its subagent call.';
  const from = `You are a subagent${named} working on a task from agent ${task.parent.agent}`;
  return `${from}; you see none of its conversation. ${report}\n\nTask: ${task.task}`;
}

/**
 * The task as its child turn's inbound message: on the parent's channel and chat (so `message` reaches the user and
 * channel rules such as exec from a remote chat hold the child as they held the parent), never a chat command.
 */
export function childMessage(task: SubagentTaskContext): ChildMessage {
  return {
    message_id: task.id,
    channel: task.origin.channel,
    account: 'default',
    chat: task.origin.chat,
    sender: `agent:${task.parent.agent}`,
    text: framed(task),
    remote: task.origin.remote,
    commands: [],
    media: [],
  };
}
