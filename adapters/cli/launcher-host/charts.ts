import type { AnyStateMachine, AnyStateNode } from 'xstate';
import type { ChartNode, ChartTransition } from '../../launcher/api/host.js';
import { MCP_SERVER_MACHINE } from '../../../actors/mcp/server-moves.js';
import { agentMachine } from '../../../machines/agent.js';
import { channelMachine } from '../../../machines/channel.js';
import { cronJobMachine } from '../../../machines/cron.js';
import { gatewayMachine } from '../../../machines/gateway.js';
import { heartbeatMachine } from '../../../machines/heartbeat.js';
import { loopDetectionMachine } from '../../../machines/loop-detection.js';
import { mcpDiscoveryMachine } from '../../../machines/mcp-discovery.js';
import { mcpServerMachine } from '../../../machines/mcp-server.js';
import { sessionMachine } from '../../../machines/session.js';
import { skillOverrideMachine } from '../../../machines/skill-override.js';
import { streamingMachine } from '../../../machines/streaming.js';
import { subagentTaskMachine } from '../../../machines/subagent-task.js';
import { todoPlanMachine } from '../../../machines/todo-plan.js';
import { turnMachine } from '../../../machines/turn.js';

function guardName(guard: unknown): string | undefined {
  if (typeof guard === 'string') return guard;
  const type = (guard as { type?: unknown } | undefined)?.type;
  return typeof type === 'string' ? type : undefined;
}

/**
 * The moves out of one state node, read from xstate's resolved definition: one entry per event and target
 * (the guards that choose between several targets of one event listed with it). A target is its path below
 * the machine's root (`calling_model`, `showing.message_updated`); a move without one only runs actions.
 */
function transitionsOf(node: AnyStateNode): ChartTransition[] {
  const byMove = new Map<string, ChartTransition>();
  const definitions = [...node.transitions.values()].flat().concat(node.always ?? []);
  for (const definition of definitions) {
    const event = definition.eventType === '' ? 'always' : String(definition.eventType);
    const target = definition.target?.[0]?.path.join('.');
    const id = `${event}\u0000${target ?? ''}`;
    const move = byMove.get(id) ?? { event, ...(target ? { target } : {}), guards: [] };
    const guard = guardName(definition.guard);
    if (guard && !move.guards.includes(guard)) move.guards.push(guard);
    byMove.set(id, move);
  }
  return [...byMove.values()];
}

function chartOf(node: AnyStateNode): ChartNode {
  const initial = node.type === 'compound' ? node.initial.target[0]?.key : undefined;
  return {
    key: node.key,
    ...(initial ? { initial } : {}),
    final: node.type === 'final',
    transitions: transitionsOf(node),
    states: Object.values(node.states).map(chartOf),
  };
}

const MACHINES: Record<string, AnyStateMachine> = {
  turn: turnMachine,
  streaming: streamingMachine,
  skill_override: skillOverrideMachine,
  loop_detection: loopDetectionMachine,
  todo_plan: todoPlanMachine,
  mcp_discovery: mcpDiscoveryMachine,
  gateway: gatewayMachine,
  heartbeat: heartbeatMachine,
  agent: agentMachine,
  session: sessionMachine,
  subagent: subagentTaskMachine,
  channel: channelMachine,
  cron: cronJobMachine,
  [MCP_SERVER_MACHINE]: mcpServerMachine,
};

/** Every machine's state chart, read from its definition (states, initial state, moves), keyed by machine name. */
export function machineCharts(): Record<string, ChartNode> {
  return Object.fromEntries(
    Object.entries(MACHINES).map(([name, machine]) => [name, { ...chartOf(machine.root), key: name }]),
  );
}
