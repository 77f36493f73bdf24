import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ProviderErrorCode } from '../../bus/index.js';
import { classifyFailure } from '../../adapters/providers/classify.js';

// Bodies as the vendors document them.
const cases: Array<{ name: string; status: number; body: unknown; code: ProviderErrorCode; retryable: boolean }> = [
  {
    name: 'chat-completions invalid key',
    status: 401,
    body: {
      error: {
        message: 'Incorrect API key provided',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      },
    },
    code: 'auth',
    retryable: false,
  },
  {
    name: 'messages permission error',
    status: 403,
    body: { type: 'error', error: { type: 'permission_error', message: 'no access' } },
    code: 'auth',
    retryable: false,
  },
  {
    name: 'generate-content bad key',
    status: 400,
    body: {
      error: {
        code: 400,
        message: 'API key not valid.',
        status: 'INVALID_ARGUMENT',
        details: [{ reason: 'API_KEY_INVALID' }],
      },
    },
    code: 'auth',
    retryable: false,
  },
  {
    name: 'chat-completions rate limit',
    status: 429,
    body: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } },
    code: 'rate_limit',
    retryable: true,
  },
  {
    name: 'chat-completions quota exhausted',
    status: 429,
    body: {
      error: {
        message: 'You exceeded your current quota, please check your plan and billing details.',
        type: 'insufficient_quota',
        code: 'insufficient_quota',
      },
    },
    code: 'billing',
    retryable: false,
  },
  {
    name: 'generate-content resource exhausted',
    status: 429,
    body: {
      error: {
        code: 429,
        message: 'You exceeded your current quota, please check your plan and billing details.',
        status: 'RESOURCE_EXHAUSTED',
      },
    },
    code: 'rate_limit',
    retryable: true,
  },
  {
    name: 'payment required',
    status: 402,
    body: { error: { message: 'Insufficient credits' } },
    code: 'billing',
    retryable: false,
  },
  {
    name: 'messages low credit balance',
    status: 400,
    body: {
      type: 'error',
      error: { type: 'invalid_request_error', message: 'Your credit balance is too low to access the Anthropic API.' },
    },
    code: 'billing',
    retryable: false,
  },
  {
    name: 'messages overloaded',
    status: 529,
    body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    code: 'overloaded',
    retryable: true,
  },
  {
    name: 'generate-content unavailable',
    status: 503,
    body: { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } },
    code: 'overloaded',
    retryable: true,
  },
  {
    name: 'chat-completions context length',
    status: 400,
    body: {
      error: {
        message: 'maximum context length is 8192 tokens',
        type: 'invalid_request_error',
        code: 'context_length_exceeded',
      },
    },
    code: 'context_overflow',
    retryable: false,
  },
  {
    name: 'messages prompt too long',
    status: 400,
    body: {
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' },
    },
    code: 'context_overflow',
    retryable: false,
  },
  {
    name: 'generate-content token count',
    status: 400,
    body: {
      error: {
        code: 400,
        message: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
        status: 'INVALID_ARGUMENT',
      },
    },
    code: 'context_overflow',
    retryable: false,
  },
  {
    name: 'plain bad request',
    status: 400,
    body: { error: { message: 'Invalid value for temperature', type: 'invalid_request_error' } },
    code: 'bad_request',
    retryable: false,
  },
  { name: 'gateway timeout', status: 504, body: 'upstream timed out', code: 'timeout', retryable: true },
  { name: 'HTML from a proxy', status: 502, body: '<html>Bad Gateway</html>', code: 'overloaded', retryable: true },
];

for (const { name, status, body, code, retryable } of cases) {
  test(`classify: ${name} (${status}) is ${code}`, () => {
    const error = classifyFailure(status, typeof body === 'string' ? body : JSON.stringify(body));
    assert.equal([error.code, error.retryable, error.status], [code, retryable, status]);
  });
}

test('classify: retry-after seconds become retryAfterMs', () => {
  assert.is(classifyFailure(429, '{}', '7').retryAfterMs, 7000);
  assert.is(classifyFailure(429, '{}', 'soon').retryAfterMs, undefined);
});

test('classify: the message names the status and the vendor message', () => {
  assert.is(classifyFailure(503, JSON.stringify({ error: { message: 'busy' } })).message, 'HTTP 503: busy');
  assert.is(
    classifyFailure(200, JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }))
      .message,
    'error event in stream: Overloaded',
  );
});

test.run();
