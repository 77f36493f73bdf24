import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { agentModel } from '../../actors/wiring/agent-model.js';
import { allowedPeers } from '../../actors/subagents/allowed-agents.js';
import { validateConfig, type Config } from '../../store/config/index.js';

const models = [
  { model_name: 'fast', provider: 'openai', model: 'gpt-fast' },
  { model_name: 'smart', provider: 'openai', model: 'gpt-smart' },
];

function valid(input: Record<string, unknown>): Config {
  const result = validateConfig({ version: 2, model_list: models, ...input });
  if (!result.ok) throw new Error(result.problems.join('; '));
  return result.config;
}

function problems(input: Record<string, unknown>): string[] {
  const result = validateConfig({ version: 2, model_list: models, ...input });
  return result.ok ? [] : result.problems;
}

const test = suite('agents and subagents in the config');

test("the peer runtime's agents.list shapes load: model as a name or {primary, fallbacks}, skills, subagents", () => {
  const config = valid({
    agents: {
      list: [
        {
          id: 'main',
          default: true,
          model: 'fast',
          skills: ['weather'],
          subagents: { allow_agents: ['*'], model: { primary: 'smart', fallbacks: ['fast'] } },
        },
        { id: 'helper', name: 'Helper', workspace: '~/helper', model: { primary: 'smart' } },
      ],
    },
  });
  assert.equal(config.agents.list[0], {
    id: 'main',
    default: true,
    model: 'fast',
    skills: ['weather'],
    subagents: { allow_agents: ['*'], model: { primary: 'smart', fallbacks: ['fast'] } },
  });
  assert.equal(config.agents.list[1]!.model, { primary: 'smart', fallbacks: [] });
});

test("the peer runtime's agents.defaults.subturn is read as agents.defaults.subagents", () => {
  assert.equal(
    valid({ agents: { defaults: { subturn: { max_depth: 2, concurrency_timeout_sec: 5 } } } }).agents.defaults
      .subagents,
    { max_depth: 2, max_concurrent: 5, default_timeout_minutes: 5, concurrency_timeout_sec: 5 },
  );
});

test('problems name the field and what is allowed', () => {
  assert.equal(
    problems({
      agents: {
        list: [
          {
            id: 'main',
            model: { primary: 'fast', fallbacks: ['nope'] },
            subagents: { allow_agents: ['ghost'], model: 'missing' },
          },
          { id: 'main' },
        ],
      },
    }),
    [
      'agents.list[0].model.fallbacks[0]: "nope" is not a model_name in model_list (allowed: fast, smart)',
      'agents.list[0].subagents.model: "missing" is not a model_name in model_list (allowed: fast, smart)',
      'agents.list[0].subagents.allow_agents[0]: "ghost" is not an agent in agents.list (allowed: *, main)',
      'agents.list[1].id: "main" is the id of an earlier agent (allowed: a unique id)',
    ],
  );
  assert.equal(problems({ agents: { list: [{ id: 'a', model: 7 }] } }), [
    'agents.list[0].model: 7 is not a model (allowed: a model_name, ' +
      'or {"primary": model_name, "fallbacks": [model_name, …]})',
  ]);
  assert.equal(problems({ agents: { defaults: { subagents: { max_depth: 11, max_concurrent: 'five' } } } }), [
    'agents.defaults.subagents.max_depth: 11 is too large (allowed: whole numbers 1 to 10)',
    'agents.defaults.subagents.max_concurrent: "five" is not a whole number (allowed: whole numbers 1 to 50)',
  ]);
});

test('allowed peers: the listed ids, or every other agent for "*", sorted; none without allow_agents', () => {
  const config = valid({
    agents: {
      list: [
        { id: 'main', subagents: { allow_agents: ['zeta', 'alpha'] } },
        { id: 'zeta' },
        { id: 'alpha', subagents: { allow_agents: ['*'] } },
        { id: 'beta' },
      ],
    },
  });
  assert.equal(allowedPeers(config, 'main'), ['alpha', 'zeta']);
  assert.equal(allowedPeers(config, 'alpha'), ['beta', 'main', 'zeta']);
  assert.equal(allowedPeers(config, 'beta'), []);
});

test(
  'model of a turn: agents.list, then the defaults; ' +
    "at delegation the delegator's subagents.model first and the AGENT.md model after agents.list",
  () => {
    const config = valid({
      agents: {
        defaults: { model: 'fast' },
        list: [{ id: 'main', subagents: { model: 'smart' } }, { id: 'own', model: 'smart' }, { id: 'plain' }],
      },
    });
    const doc = { frontmatter: { model: 'smart' }, body: '' };
    const none = { frontmatter: {}, body: '' };
    assert.equal(agentModel(config, 'plain', doc), { primary: 'fast', fallbacks: [] });
    assert.equal(agentModel(config, 'plain', doc, 'own'), { primary: 'smart', fallbacks: [] });
    assert.equal(agentModel(config, 'plain', none, 'own'), { primary: 'fast', fallbacks: [] });
    assert.equal(agentModel(config, 'own', none), { primary: 'smart', fallbacks: [] });
    assert.equal(agentModel(config, 'plain', none, 'main'), { primary: 'smart', fallbacks: [] });
  },
);

test.run();
