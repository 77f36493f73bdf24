// One delegated task as a subagent host receives it: the child turn both the host's tests and the request tests run.
import type { ChildTurn } from '../../actors/subagents/host.js';

export const child: ChildTurn = {
  agent: 'research',
  sessionKey: 'agent:research:subagent:task_1',
  link: { parent: 'turn_p', task: 'task_1', delegatedBy: 'main' },
  message: {
    message_id: 'task_1',
    channel: 'subagent',
    account: 'default',
    chat: 'direct:main',
    sender: 'main',
    text: 'find the answer',
    remote: true,
    media: [],
  },
  timeoutMs: 60_000,
};
