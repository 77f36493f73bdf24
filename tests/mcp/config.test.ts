import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseEnvFile } from '../../store/config/env-file.js';
import { DEFAULT_DISCOVERY, mcpConfigProblems, transportOf, type McpServerConfig } from '../../adapters/mcp/options.js';
import { mcpOptionsFromConfig } from '../../adapters/mcp/from-config.js';
import { McpManager } from '../../actors/mcp/manager.js';
import { validateConfig } from '../../store/config/index.js';
import { mcpOptions } from '../support/mcp-servers.js';

const transports: Array<[string, McpServerConfig, string | undefined]> = [
  ['url without type is http', { enabled: true, url: 'https://x.test/mcp' }, 'http'],
  ['command without type is stdio', { enabled: true, command: 'srv' }, 'stdio'],
  ['explicit sse', { enabled: true, type: 'sse', url: 'https://x.test/sse' }, 'sse'],
  ['unknown type', { enabled: true, type: 'websocket', url: 'wss://x.test' }, undefined],
];

for (const [name, server, expected] of transports) {
  test(`transport: ${name}`, () => assert.is(transportOf(server), expected));
}

const problems: Array<[string, Record<string, McpServerConfig>, Partial<typeof DEFAULT_DISCOVERY>, string[]]> = [
  [
    'a valid stdio and http pair',
    { a: { enabled: true, command: 'x' }, b: { enabled: true, url: 'http://h/mcp' } },
    {},
    [],
  ],
  [
    'an unknown type',
    { ws: { enabled: true, type: 'websocket', url: 'wss://x' } },
    {},
    ['tools.mcp.servers.ws.type: unknown type "websocket" (allowed: stdio, sse, http)'],
  ],
  [
    'oauth with an Authorization header',
    { r: { enabled: true, url: 'https://r/mcp', oauth: {}, headers: { authorization: 'Bearer x' } } },
    {},
    [
      'tools.mcp.servers.r.oauth: cannot be combined with an Authorization header (allowed: ' +
        'oauth or headers.Authorization, not both)',
    ],
  ],
  [
    'sse without url',
    { s: { enabled: true, type: 'sse' } },
    {},
    ['tools.mcp.servers.s.url: is required for a sse server (allowed: an http(s) URL)'],
  ],
  [
    'discovery on with both searches off',
    {},
    { enabled: true, use_bm25: false, use_regex: false },
    [
      'tools.mcp.discovery: enabled with use_bm25 and use_regex both false; ' +
        'enable one of them (allowed: use_bm25, use_regex)',
    ],
  ],
  ['discovery on with regex only', {}, { enabled: true, use_bm25: false, use_regex: true }, []],
];

for (const [name, servers, discovery, expected] of problems) {
  test(`config problems: ${name}`, () => {
    assert.equal(
      mcpConfigProblems(mcpOptions(servers, { discovery: { ...DEFAULT_DISCOVERY, ...discovery } })),
      expected,
    );
  });
}

test('the manager refuses to start with discovery on and both searches off', () => {
  const manager = new McpManager({
    options: mcpOptions({}, { discovery: { ...DEFAULT_DISCOVERY, enabled: true, use_bm25: false } }),
    workspace: '/nonexistent',
    home: '/nonexistent',
  });
  try {
    manager.start();
    assert.unreachable('start should throw');
  } catch (error) {
    assert.is((error as { code?: string }).code, 'mcp_config_invalid');
    assert.match((error as Error).message, 'enable one of them (allowed: use_bm25, use_regex)');
  }
});

test('a disabled MCP block starts nothing and lists servers as disabled', () => {
  const manager = new McpManager({
    options: mcpOptions({ a: { enabled: true, command: 'x' } }, { enabled: false }),
    workspace: '/n',
    home: '/n',
  });
  manager.start();
  assert.equal(manager.statuses(), [
    { name: 'a', enabled: false, deferred: false, transport: 'stdio', connection: { state: 'disabled' } },
  ]);
});

test('env files: comments, export, quotes and escapes', () => {
  const text = [
    '# a comment',
    '',
    'PLAIN=value',
    'export EXPORTED=yes',
    'SPACED = around ',
    'TRAILING=bare # note',
    'DOUBLE="two\\nlines # kept"',
    "SINGLE='raw \\n # kept'",
    'EMPTY=',
  ].join('\n');
  assert.equal(parseEnvFile(text), {
    PLAIN: 'value',
    EXPORTED: 'yes',
    SPACED: 'around',
    TRAILING: 'bare',
    DOUBLE: 'two\nlines # kept',
    SINGLE: 'raw \\n # kept',
    EMPTY: '',
  });
});

test('env files: a bad line is named with its number', () => {
  assert.throws(
    () => parseEnvFile('OK=1\nnot a pair\n', 'x.env'),
    (error: Error) =>
      error.message === 'x.env:2: not a KEY=value line (allowed: KEY=value, export KEY=value, # comments, blank lines)',
  );
  assert.throws(
    () => parseEnvFile('Q="open', 'x.env'),
    (error: Error) => error.message.startsWith('x.env:1: unterminated " quote'),
  );
});

test('the validated tools.mcp block maps onto the adapter options with secrets revealed', () => {
  const validation = validateConfig({
    version: 2,
    tools: {
      mcp: {
        enabled: true,
        servers: {
          remote: {
            enabled: true,
            url: 'http://h/mcp',
            headers: { 'X-Key': 'header-secret-value' },
            oauth: { scope: 'read' },
          },
          local: { enabled: true, command: 'srv', env: { TOKEN: 'env-secret-value' }, deferred: true },
        },
      },
    },
  });
  assert.ok(validation.ok);
  if (!validation.ok) return;
  assert.equal(mcpOptionsFromConfig(validation.config.tools.mcp), {
    enabled: true,
    discovery: { enabled: false, ttl: 5, max_search_results: 5, use_bm25: true, use_regex: false },
    servers: {
      remote: {
        enabled: true,
        args: [],
        env: {},
        inherit_env: false,
        url: 'http://h/mcp',
        headers: { 'X-Key': 'header-secret-value' },
        oauth: { scope: 'read' },
      },
      local: {
        enabled: true,
        deferred: true,
        command: 'srv',
        args: [],
        env: { TOKEN: 'env-secret-value' },
        inherit_env: false,
        headers: {},
      },
    },
    max_inline_text_chars: 16000,
  });
});

test.run();
