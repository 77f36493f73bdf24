// A runtime on a temporary AGENT_HOME whose models all live on one rule model (each `model_list` entry its own
// model id, `gpt-<model_name>`), with a `send` that records what the `message` tool and task reports deliver.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sessionKeyOf } from '../../actors/agent.js';
import type { SendOutcome } from '../../adapters/tools/options.js';
import { Runtime } from '../../actors/runtime.js';
import type { SessionReply } from '../../actors/routing.js';
import type { Envelope } from '../../bus/index.js';
import { loadConfig } from '../../store/config/index.js';
import { startRuleModel, type Rule, type RuleModel } from './rule-model.js';
import { tempHome, type TempHome } from './temp-home.js';

export interface Sent {
  channel: string;
  chat: string;
  text: string;
}

export interface SubagentFixture {
  home: TempHome;
  model: RuleModel;
  runtime: Runtime;
  events: Envelope[];
  sent: Sent[];
  /** What the runtime logged at error level (`logError`). */
  errors: string[];
  /**
   * A message from chat `direct:<chat>` of `channel` (default the local `cli`) to `agent` (default the default agent).
   */
  say(
    text: string,
    options?: { chat?: string; channel?: string; agent?: string; remote?: boolean },
  ): Promise<SessionReply>;
  /** Writes a file under AGENT_HOME. */
  write(path: string, text: string): void;
  close(): Promise<void>;
}

export interface FixtureOptions {
  models?: string[];
  /** The `agents` block (given the AGENT_HOME, for paths under it). */
  agents?: Record<string, unknown> | ((home: string) => Record<string, unknown>);
  tools?: Record<string, unknown>;
  /** Files under AGENT_HOME written before the runtime starts (e.g. `workspace/AGENT.md`). */
  files?: Record<string, string>;
  /** What each send comes to (default `sent`): a text relayed to another member, or one that reached no chat. */
  sendOutcome?: SendOutcome;
}

export function keyFor(agent: string, channel: string, chat: string): string {
  return sessionKeyOf({ agent, channel, dimensions: [['chat', chat]] });
}

export async function startSubagentFixture(rule: Rule, options: FixtureOptions = {}): Promise<SubagentFixture> {
  const home = tempHome();
  const model = await startRuleModel(rule);
  const models = options.models ?? ['fast'];
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(home.home, path)), { recursive: true });
    writeFileSync(join(home.home, path), text);
  };
  write(
    'config.json',
    JSON.stringify({
      version: 2,
      agents: {
        defaults: { model: models[0] },
        ...(typeof options.agents === 'function' ? options.agents(home.home) : options.agents),
      },
      ...(options.tools ? { tools: options.tools } : {}),
      model_list: models.map((name) => ({
        model_name: name,
        provider: 'openai',
        model: `gpt-${name}`,
        api_base: `${model.url}/v1`,
        api_keys: ['sk-test-key-0001'],
      })),
    }),
  );
  for (const [path, text] of Object.entries(options.files ?? {})) write(path, text);
  const sent: Sent[] = [];
  const errors: string[] = [];
  const runtime = Runtime.start({
    loaded: loadConfig({ env: home.env }),
    env: home.env,
    command: 'test',
    logError: (line) => void errors.push(line),
    send: async (target, text) => {
      sent.push({ channel: target.channel, chat: target.chat, text });
      return options.sendOutcome ?? { kind: 'sent' };
    },
  });
  const events: Envelope[] = [];
  runtime.bus.events$.subscribe((e) => events.push(e));
  return {
    home,
    model,
    runtime,
    events,
    sent,
    errors,
    write,
    say: (text, o = {}) => {
      const agent = o.agent ?? runtime.defaultAgent();
      const channel = o.channel ?? 'cli';
      const chat = `direct:${o.chat ?? 'u1'}`;
      const message_id = `m_${Math.random().toString(36).slice(2)}`;
      return runtime.ask({
        agent,
        session_key: keyFor(agent, channel, chat),
        channel,
        chat,
        sender: 'tester',
        message_id,
        text,
        remote: o.remote ?? channel !== 'cli',
      });
    },
    close: async () => {
      try {
        await runtime.close();
      } finally {
        await model.close();
        home.remove();
      }
    },
  };
}

/** The events of one turn, or of one task (its parent's records of it and its child's events). */
export const ofTurn = (events: Envelope[], turn: string): Envelope[] => events.filter((e) => e.turn === turn);
export const ofTask = (events: Envelope[], task: string): Envelope[] => events.filter((e) => e.task === task);

/** The turn a reply came from ('' for a command's), and its text. */
export const turnOf = (reply: SessionReply): string => (reply.kind === 'turn' ? reply.turn : '');
export const textOf = (reply: SessionReply): string => (reply.kind === 'none' ? '' : reply.text);
