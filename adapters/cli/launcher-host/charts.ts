import type { AnyStateMachine } from 'xstate';
import type { ChartNode } from '../../launcher/api/host.js';
import { MCP_SERVER_MACHINE } from '../../mcp/server-moves.js';
import { agentMachine } from '../../../machines/agent.js';
import { channelMachine } from '../../../machines/channel.js';
import { cronMachine } from '../../../machines/cron.js';
import { gatewayMachine } from '../../../machines/gateway.js';
import { heartbeatMachine } from '../../../machines/heartbeat.js';
import { loopDetectionMachine } from '../../../machines/loop-detection.js';
import { mcpDiscoveryMachine } from '../../../machines/mcp-discovery.js';
import { mcpServerMachine } from '../../../machines/mcp-server.js';
import { sessionMachine } from '../../../machines/session.js';
import { skillOverrideMachine } from '../../../machines/skill-override.js';
import { streamingMachine } from '../../../machines/streaming.js';
import { todoPlanMachine } from '../../../machines/todo-plan.js';
import { turnMachine } from '../../../machines/turn.js';

type NodeConfig = { initial?: unknown; type?: unknown; on?: Record<string, unknown>; states?: Record<string, NodeConfig> };

function chartOf(key: string, config: NodeConfig): ChartNode {
  return {
    key,
    ...(typeof config.initial === 'string' ? { initial: config.initial } : {}),
    final: config.type === 'final',
    on: Object.keys(config.on ?? {}),
    states: Object.entries(config.states ?? {}).map(([child, node]) => chartOf(child, node)),
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
  channel: channelMachine,
  cron: cronMachine,
  [MCP_SERVER_MACHINE]: mcpServerMachine,
};

/** Every machine's state chart, read from its definition, for the machines page. */
export function machineCharts(): Record<string, ChartNode> {
  return Object.fromEntries(Object.entries(MACHINES).map(([name, machine]) => [name, chartOf(name, machine.config as NodeConfig)]));
}
