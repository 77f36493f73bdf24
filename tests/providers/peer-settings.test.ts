// The peer runtime's model settings in `agents.defaults` reach the vendor's wire, from a config file's values.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { EventDraft } from '../../bus/index.js';
import { ReloadableRouter } from '../../actors/wiring/reloadable-router.js';
import { validateConfig, type Config } from '../../store/config/index.js';
import { completion } from '../support/vendor-chat-completions.js';
import { generated } from '../support/vendor-generate-content.js';
import { message } from '../support/vendor-messages.js';
import { bodyOf, json, startVendorServer, type VendorServer } from '../support/vendor-server.js';

const test = suite('peer model settings');
let vendor: VendorServer;
test.before(async () => {
  vendor = await startVendorServer();
});
test.after(async () => {
  await vendor.close();
});
test.before.each(() => vendor.reset());

const hello = { messages: [{ role: 'user' as const, content: 'hi' }], tools: [] };

function configOf(
  defaults: Record<string, unknown>,
  entry: Record<string, unknown> = {},
): { config: Config; warnings: string[] } {
  const result = validateConfig({
    version: 2,
    agents: { defaults: { model: 'gpt', ...defaults } },
    model_list: [
      {
        model_name: 'gpt',
        provider: 'openai',
        model: 'gpt-x',
        api_base: `${vendor.url}/v1`,
        api_keys: ['sk-a'],
        ...entry,
      },
      {
        model_name: 'claude',
        provider: 'anthropic',
        model: 'claude-x',
        api_base: `${vendor.url}/v1`,
        api_keys: ['sk-b'],
        ...entry,
      },
      {
        model_name: 'gemini',
        provider: 'gemini',
        model: 'gemini-x',
        api_base: `${vendor.url}/v1beta`,
        api_keys: ['sk-c'],
        ...entry,
      },
    ],
  });
  if (!result.ok) throw new Error(result.problems.join('\n'));
  return { config: result.config, warnings: result.warnings };
}

test("temperature and max_tokens are in every family's request body, under the vendor's own names", async () => {
  const { config, warnings } = configOf({ temperature: 0.3, max_tokens: 777 });
  assert.equal(
    warnings.filter((w) => /temperature|max_tokens/.test(w)),
    [],
  );
  const router = new ReloadableRouter(config, {});
  vendor.reply(completion({ content: 'a' }), message([{ type: 'text', text: 'b' }]), generated([{ text: 'c' }]));
  await router.chat('gpt', hello);
  await router.chat('claude', hello);
  await router.chat('gemini', hello);
  const [chat, messages, generate] = vendor.requests.map((r) => bodyOf(r) as Record<string, unknown>);
  assert.equal([chat!.temperature, chat!.max_tokens], [0.3, 777]);
  assert.equal([messages!.temperature, messages!.max_tokens], [0.3, 777]);
  assert.equal(generate!.generationConfig, { temperature: 0.3, maxOutputTokens: 777 });
});

test('without them the bodies carry no temperature, and max_tokens only where the vendor requires it', async () => {
  const router = new ReloadableRouter(configOf({}).config, {});
  vendor.reply(completion({ content: 'a' }), message([{ type: 'text', text: 'b' }]), generated([{ text: 'c' }]));
  await router.chat('gpt', hello);
  await router.chat('claude', hello);
  await router.chat('gemini', hello);
  const [chat, messages, generate] = vendor.requests.map((r) => bodyOf(r) as Record<string, unknown>);
  assert.equal([chat!.temperature, chat!.max_tokens], [undefined, undefined]);
  assert.equal([messages!.temperature, messages!.max_tokens], [undefined, 4096]);
  assert.is(generate!.generationConfig, undefined);
});

test('max_llm_retries and llm_retry_backoff_secs drive the retries of a failing vendor', async () => {
  const { config, warnings } = configOf({ max_llm_retries: 1, llm_retry_backoff_secs: 1 });
  assert.equal(
    warnings.filter((w) => /retr/.test(w)),
    [],
  );
  const events: EventDraft[] = [];
  const router = new ReloadableRouter(config, { report: (draft) => void events.push(draft) });
  const down = json({ error: { message: 'overloaded', type: 'server_error' } }, 503);
  vendor.reply(down, down, down, down);
  const started = Date.now();
  const error = await router.chat('gpt', hello).then(
    () => undefined,
    (e: unknown) => e,
  );
  const elapsed = Date.now() - started;
  assert.ok(error instanceof Error);
  assert.is(vendor.requests.length, 2);
  assert.equal(
    events.filter((e) => e.type === 'provider.retried').map((e) => (e.data as { delay_ms: number }).delay_ms),
    [1000],
  );
  assert.ok(elapsed >= 1000, `waited ${elapsed} ms`);
});

async function bodiesWith(
  defaults: Record<string, unknown>,
  entry: Record<string, unknown>,
): Promise<Array<Record<string, unknown>>> {
  const { config, warnings } = configOf(defaults, entry);
  assert.equal(warnings, []);
  const router = new ReloadableRouter(config, {});
  vendor.reset();
  vendor.reply(completion({ content: 'a' }), message([{ type: 'text', text: 'b' }]), generated([{ text: 'c' }]));
  for (const name of ['gpt', 'claude', 'gemini']) await router.chat(name, hello);
  return vendor.requests.map((r) => bodyOf(r) as Record<string, unknown>);
}

test("thinking_level medium is each family's reasoning field, and messages-style drops its temperature", async () => {
  const [chat, messages, generate] = await bodiesWith(
    { temperature: 0.5, max_tokens: 20_000 },
    { thinking_level: 'medium' },
  );
  assert.equal([chat!.reasoning_effort, chat!.temperature], ['medium', 0.5]);
  assert.equal([messages!.thinking, messages!.temperature], [{ type: 'enabled', budget_tokens: 10_000 }, undefined]);
  assert.equal(generate!.generationConfig, {
    temperature: 0.5,
    maxOutputTokens: 20_000,
    thinkingConfig: { thinkingBudget: 10_000 },
  });
});

test(
  'thinking_level high keeps the thinking budget below max_tokens; ' + 'off turns the generate-content budget to 0',
  async () => {
    const [, messages] = await bodiesWith({}, { thinking_level: 'high' });
    assert.equal([messages!.max_tokens, messages!.thinking], [4096, { type: 'enabled', budget_tokens: 4095 }]);
    const [chat, offMessages, generate] = await bodiesWith({}, { thinking_level: 'off' });
    assert.equal([chat!.reasoning_effort, offMessages!.thinking], [undefined, undefined]);
    assert.equal(generate!.generationConfig, { thinkingConfig: { thinkingBudget: 0 } });
  },
);

test.run();
