import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateConfig } from '../../store/config/index.js';

test('hooks, plugins and require_approval: every problem names its path and what is allowed', () => {
  const validation = validateConfig({
    version: 2,
    hooks: {
      defaults: { interceptor_timeout_ms: -1 },
      processes: {
        a: { command: ['node', 'a.js'], intercept: ['before_toool'] },
        b: { command: [], transport: 'http', intercept: ['before_tool'] },
        c: { command: ['x'] },
        d: { command: ['x'], observe: ['Tool Completed'] },
      },
    },
    plugins: { entries: { p: { trusted: 'yes' } } },
    tools: { mcp: { require_approval: { tools: 'mcp_*' } }, exec: { require_approval: 1 } },
  });
  assert.equal(validation, {
    ok: false,
    problems: [
      'tools.mcp.require_approval: an object is not a list (allowed: a list of strings)',
      'tools.exec.require_approval: 1 is not a boolean (allowed: true, false)',
      'hooks.defaults.interceptor_timeout_ms: -1 is too small (allowed: whole numbers 1 to 600000)',
      'hooks.processes.a.intercept[0]: "before_toool" is not allowed (allowed: ' +
        'before_llm, after_llm, before_tool, after_tool, approve_tool)',
      'hooks.processes.b.transport: "http" is not allowed (allowed: stdio)',
      'hooks.processes.b.command: must name the program to run (allowed: a list such as ["node", "hook.js"])',
      'hooks.processes.c.intercept: the hook neither observes nor intercepts anything (allowed: ' +
        'observe [event types], or intercept any of before_llm, after_llm, before_tool, after_tool, approve_tool)',
      'hooks.processes.d.observe[0]: "Tool Completed" is not an event type (allowed: ' +
        'an event type such as tool.completed, a glob such as tool.*, or * for all)',
      'plugins.entries.p.trusted: "yes" is not a boolean (allowed: true, false)',
    ],
  });
});

test('a peer-runtime hooks block with observe, intercept, env and priority is read as written', () => {
  const validation = validateConfig({
    version: 2,
    hooks: {
      processes: {
        audit: {
          enabled: true,
          priority: 5,
          transport: 'stdio',
          command: ['python3', 'audit.py'],
          dir: '/opt/hooks',
          env: { TOKEN: 'abc-secret-123' },
          observe: ['turn.*'],
          intercept: ['approve_tool'],
        },
      },
    },
  });
  assert.ok(validation.ok);
  const audit = validation.ok ? validation.config.hooks.processes.audit! : undefined;
  assert.equal(
    { ...audit, env: Object.fromEntries(Object.entries(audit!.env).map(([k, v]) => [k, v.reveal()])) },
    {
      enabled: true,
      priority: 5,
      transport: 'stdio',
      command: ['python3', 'audit.py'],
      dir: '/opt/hooks',
      env: { TOKEN: 'abc-secret-123' },
      observe: ['turn.*'],
      intercept: ['approve_tool'],
    },
  );
  assert.is(String(audit!.env.TOKEN), 'abc-…23');
});

test.run();
