import type { AnyStateMachine } from 'xstate';
import type { ChartNode } from '../../launcher/api/host.js';
import { loopDetectionMachine } from '../../../machines/loop-detection.js';
import { mcpDiscoveryMachine } from '../../../machines/mcp-discovery.js';
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
};

/** Every machine's state chart, read from its definition, for the machines page. */
export function machineCharts(): Record<string, ChartNode> {
  return Object.fromEntries(Object.entries(MACHINES).map(([name, machine]) => [name, chartOf(name, machine.config as NodeConfig)]));
}
