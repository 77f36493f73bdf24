import type { Correlation, Envelope, EventData } from '../../bus/index.js';
import { taskShape, taskSummary } from './task-shape.js';

interface Tally {
  started: Envelope<'turn.started'>;
  tools: string[];
  skills: Set<string>;
  input: number;
  output: number;
}

export type LearningRecord = { correlation: Correlation; data: EventData<'learning.recorded'> };

/** The events a tally reads. */
export const TALLY_TYPES = [
  'turn.started',
  'tool.requested',
  'provider.responded',
  'turn.completed',
  'turn.failed',
  'turn.stopped',
  'turn.aborted',
] as const;

/** Channels a person does not type in: the heartbeat's turns (and other internal ones) are never learned from. */
const UNRECORDED_CHANNELS = new Set(['system']);

/** A skill the turn read: its SKILL.md under a `skills/<name>/` folder. */
const SKILL_FILE = /(?:^|[/\\])skills[/\\]([^/\\]+)[/\\]SKILL\.md$/;

/**
 * Follows every turn from `turn.started` to its end and turns it into a learning record: the task, the tools it
 * called, the skills it used (forced by `/use`, or whose SKILL.md it read), how it ended, how long it took and
 * the tokens its model calls cost. Aborted turns (a shutdown), heartbeat turns and turns with history off give none.
 */
export class TurnTallies {
  private readonly open = new Map<string, Tally>();

  feed(event: Envelope): LearningRecord | undefined {
    if (event.type === 'turn.started') {
      // A turn with the turn profile's `history: off` leaves nothing behind to learn from.
      if (!UNRECORDED_CHANNELS.has(event.data.channel) && event.data.history !== 'off' && event.turn) {
        this.open.set(event.turn, {
          started: event,
          tools: [],
          skills: new Set(event.data.skill ? [event.data.skill] : []),
          input: 0,
          output: 0,
        });
      }
      return undefined;
    }
    const tally = event.turn ? this.open.get(event.turn) : undefined;
    if (!tally) return undefined;
    switch (event.type) {
      case 'tool.requested': {
        tally.tools.push(event.data.name);
        const path = event.data.arguments.path;
        const skill = typeof path === 'string' ? SKILL_FILE.exec(path)?.[1] : undefined;
        if (skill) tally.skills.add(skill);
        return undefined;
      }
      case 'provider.responded':
        tally.input += event.data.usage?.input_tokens ?? 0;
        tally.output += event.data.usage?.output_tokens ?? 0;
        return undefined;
      case 'turn.completed':
        return this.close(tally, event, { outcome: 'success' });
      case 'turn.failed':
        return this.close(tally, event, { outcome: 'failure', reason: `${event.data.code}: ${event.data.message}` });
      case 'turn.stopped':
        return this.close(tally, event, { outcome: 'failure', reason: event.data.reason });
      case 'turn.aborted':
        this.open.delete(event.turn!);
        return undefined;
      default:
        return undefined;
    }
  }

  private close(
    tally: Tally,
    end: Envelope,
    outcome: { outcome: 'success' } | { outcome: 'failure'; reason: string },
  ): LearningRecord {
    this.open.delete(end.turn!);
    const { started } = tally;
    const tools = [...new Set(tally.tools)];
    return {
      correlation: {
        ...(started.agent ? { agent: started.agent } : {}),
        ...(started.session ? { session: started.session } : {}),
        turn: end.turn!,
      },
      data: {
        task: taskSummary(started.data.text),
        shape: taskShape(started.data.text, tools),
        channel: started.data.channel,
        tools,
        ...outcome,
        skills: [...tally.skills],
        duration_ms: Math.max(0, end.at - started.at),
        tokens: { input: tally.input, output: tally.output },
      },
    };
  }
}
