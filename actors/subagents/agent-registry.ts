/** What a peer is, as the agent registry in a prompt shows it: nothing else from its AGENT.md. */
export interface AgentDescriptor {
  id: string;
  name: string;
  description: string;
}

/**
 * The agent registry of a prompt, `{"agents":[{"id","name","description"}]}`, in the order given (the caller sorts
 * by id): the same peers give the same bytes, so a provider's prompt cache keeps hitting.
 */
export function agentRegistryText(peers: readonly AgentDescriptor[]): string | undefined {
  if (peers.length === 0) return undefined;
  return JSON.stringify({ agents: peers.map(({ id, name, description }) => ({ id, name, description })) });
}

/** The tools that hand work to another agent: an agent with neither gets no registry. */
export const DELEGATING_TOOLS: readonly string[] = ['spawn', 'subagent'];
