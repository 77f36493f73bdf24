import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from '../support/cli.js';
import { tempHome, type TempHome } from '../support/temp-home.js';

const test = suite<{ home: TempHome }>('model entries in the CLI');
test.before.each((ctx) => {
  ctx.home = tempHome();
  mkdirSync(ctx.home.home, { recursive: true });
});
test.after.each((ctx) => ctx.home.remove());

const write = (home: TempHome, config: unknown) =>
  writeFileSync(join(home.home, 'config.json'), JSON.stringify(config));

test('config validate names an unknown provider and the known ones', ({ home }) => {
  write(home, { version: 2, model_list: [{ model_name: 'x', provider: 'nopeai', model: 'm' }] });
  const { code, stdout } = runCli(['config', 'validate', '--json'], home.env);
  assert.is(code, 1);
  const { problems } = JSON.parse(stdout) as { problems: string[] };
  assert.equal(problems.length, 1);
  assert.match(
    problems[0]!,
    new RegExp(
      /^model_list\[0\]\.provider: unknown provider "nopeai" \(allowed: openai, anthropic, gemini, google, openrouter, /
        .source + /.*, custom, antigravity, google-antigravity, github-copilot\)$/.source,
    ),
  );
});

test('agent refuses to start on an unknown provider with the same message', ({ home }) => {
  write(home, { version: 2, model_list: [{ model_name: 'x', provider: 'nopeai', model: 'm' }] });
  const { code, stderr } = runCli(['agent', '-m', 'hi'], home.env);
  assert.is(code, 1);
  assert.match(
    stderr,
    new RegExp(
      /^tern: cannot use the config .*config\.json /.source +
        /\(model_list\[0\]\.provider: unknown provider "nopeai" \(allowed: openai, /.source,
    ),
  );
});

test('status lists each model with its provider, family, base, masked keys and state', ({ home }) => {
  write(home, {
    version: 2,
    model_list: [
      { model_name: 'smart', provider: 'anthropic', model: 'claude-x', api_keys: ['sk-ant-0123456789abcdef'] },
      { model_name: 'local', model: 'ollama/llama3', enabled: false },
    ],
  });
  const { code, stdout } = runCli(['status', '--json'], home.env);
  assert.is(code, 0);
  const { models } = JSON.parse(stdout) as { models: unknown[] };
  assert.equal(models, [
    {
      model_name: 'smart',
      enabled: true,
      key_count: 1,
      keys: ['sk-a…ef'],
      provider: 'anthropic',
      family: 'messages',
      model: 'claude-x',
      api_base: 'https://api.anthropic.com/v1',
      proxy: null,
      proxy_from: null,
    },
    {
      model_name: 'local',
      enabled: false,
      key_count: 0,
      keys: [],
      provider: 'ollama',
      family: 'chat-completions',
      model: 'llama3',
      api_base: 'http://localhost:11434/v1',
      proxy: null,
      proxy_from: null,
    },
  ]);
});

test.run();
