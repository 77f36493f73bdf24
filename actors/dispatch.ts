import type { Config } from '../store/config/index.js';
import { sessionKeyOf } from './wiring/session-key.js';

/** What dispatch rules look at, in the spec's value shapes (`direct:<id>`, `guild:<id>`, `topic:<id>` …). */
export interface DispatchFacts {
  /** The channel kind (`telegram`, `discord` …). */
  channel: string;
  account: string;
  space?: string;
  chat: string;
  topic?: string;
  sender: string;
  /** Other normalized forms of the sender (such as `@username`) a rule may name. */
  senderAliases?: string[];
  mentioned: boolean;
}

export interface Route {
  agent: string;
  /** The rule that matched; undefined when the default agent took the message. */
  rule: string | undefined;
  dimensions: string[];
  sessionKey: string;
}

type Rule = Config['agents']['dispatch']['rules'][number];
type Dimension = Config['session']['dimensions'][number];

const norm = (value: string): string => value.trim().toLowerCase();

function textMatches(wanted: string | undefined, actual: Array<string | undefined>): boolean {
  if (wanted === undefined) return true;
  return actual.some((value) => value !== undefined && norm(value) === norm(wanted));
}

/** Every field a rule names must match; a rule naming none matches everything. */
export function ruleMatches(rule: Rule, facts: DispatchFacts): boolean {
  const { when } = rule;
  return (
    textMatches(when.channel, [facts.channel]) &&
    textMatches(when.account, [facts.account]) &&
    textMatches(when.space, [facts.space]) &&
    textMatches(when.chat, [facts.chat]) &&
    textMatches(when.topic, [facts.topic]) &&
    textMatches(when.sender, [facts.sender, ...(facts.senderAliases ?? [])]) &&
    (when.mentioned === undefined || when.mentioned === facts.mentioned)
  );
}

export function defaultAgent(config: Config): string {
  const list = config.agents.list;
  return list.find((a) => a.default)?.id ?? list[0]?.id ?? 'main';
}

function dimensionValue(dimension: Dimension, facts: DispatchFacts): string | undefined {
  return { space: facts.space, chat: facts.chat, topic: facts.topic, sender: facts.sender }[dimension];
}

/**
 * Rules in order, first match wins; no match goes to the default agent (marked `default`, else the first).
 * The session scope is the rule's `session_dimensions`, else `session.dimensions`; a dimension the message
 * has no value for (a topic outside forums) is left out of the key.
 */
export function dispatch(config: Config, facts: DispatchFacts): Route {
  const rule = config.agents.dispatch.rules.find((r) => ruleMatches(r, facts));
  const agent = rule?.agent ?? defaultAgent(config);
  const dimensions = rule?.session_dimensions ?? config.session.dimensions;
  const pairs = dimensions.flatMap((d): Array<[string, string]> => {
    const value = dimensionValue(d, facts);
    return value === undefined ? [] : [[d, value.trim()]];
  });
  return {
    agent,
    rule: rule?.name,
    dimensions,
    sessionKey: sessionKeyOf({ agent, channel: facts.channel, account: facts.account, dimensions: pairs }),
  };
}
