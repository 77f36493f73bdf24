import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveWorkspace } from '../../store/workspace-path.js';
import { tempHome } from '../config/home.js';

test('the workspace is the one the config names', () => {
  const h = tempHome();
  h.writeConfig({ version: 2, agents: { defaults: { workspace: join(h.home, 'mine') } } });
  assert.is(resolveWorkspace(h.env), join(h.home, 'mine'));
  h.remove();
});

test('without a config, or with one that cannot be read, it is <AGENT_HOME>/workspace', () => {
  const h = tempHome();
  assert.is(resolveWorkspace(h.env), join(h.home, 'workspace'));
  writeFileSync(h.path('config.json'), '{ broken');
  assert.is(resolveWorkspace(h.env), join(h.home, 'workspace'));
  h.remove();
});

test('resolving the workspace never rewrites a legacy config', () => {
  const h = tempHome();
  h.writeConfig({ version: 1, agents: { defaults: { workspace: join(h.home, 'legacy') } }, model_list: [] });
  const text = h.read('config.json');
  assert.is(resolveWorkspace(h.env), join(h.home, 'legacy'));
  assert.is(h.read('config.json'), text);
  h.remove();
});

test.run();
