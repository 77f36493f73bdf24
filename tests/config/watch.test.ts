import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, rmSync } from 'node:fs';
import { firstValueFrom } from 'rxjs';
import { InProcessBus } from '../../bus/bus.js';
import { loadConfig, watchConfig, type LoadedConfig } from '../../store/config/index.js';
import { tempHome } from './home.js';
import { quietValue } from '../support/quiet.js';

const FAST_MS = 10;

/**
 * `promise`, or a failure naming `what` after 5 s: a watcher that never reacts fails the test instead of hanging it.
 */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${what} within 5 s`)), 5000);
    promise.then((value) => {
      clearTimeout(timer);
      resolve(value);
    }, reject);
  });
}

test('a valid edit publishes config.reloaded with what changed and hands over the new config', async () => {
  const h = tempHome();
  h.writeConfig({ version: 2, heartbeat: { interval: 30 } });
  const bus = new InProcessBus();
  const changes: LoadedConfig[] = [];
  const watcher = watchConfig({ bus, env: h.env, intervalMs: FAST_MS, onChange: (loaded) => changes.push(loaded) });
  const reloaded = firstValueFrom(bus.on('config.reloaded'));
  h.writeConfig({ version: 2, heartbeat: { interval: 45 }, tools: { exec: { enabled: false } } });
  const event = await reloaded;
  watcher.stop();
  assert.equal(event.data.changed, ['heartbeat.interval', 'tools.exec.enabled']);
  assert.is(changes.length, 1);
  assert.is(changes[0]!.config.heartbeat.interval, 45);
  h.remove();
});

test('an invalid edit publishes config.rejected, logs why, and keeps the running config', async () => {
  const h = tempHome();
  h.writeConfig({ version: 2 });
  const bus = new InProcessBus();
  const changes: LoadedConfig[] = [];
  const logged: string[] = [];
  const watcher = watchConfig({
    bus,
    env: h.env,
    intervalMs: FAST_MS,
    onChange: (l) => changes.push(l),
    log: (line) => logged.push(line),
  });
  const rejected = firstValueFrom(bus.on('config.rejected'));
  h.writeConfig({ version: 2, gateway: { log_max_backups: 500 } });
  const event = await rejected;
  const reloaded = firstValueFrom(bus.on('config.reloaded'));
  h.writeConfig({ version: 2, gateway: { log_max_backups: 5 } });
  const next = await reloaded;
  watcher.stop();
  assert.equal(event.data.problems, ['gateway.log_max_backups: 500 is too large (allowed: whole numbers 0 to 100)']);
  assert.equal(logged, [
    `config: the edit of ${h.path('config.json')} was rejected and the running config ` +
      'stays (gateway.log_max_backups: 500 is too large (allowed: whole numbers 0 to 100))',
  ]);
  assert.equal(next.data.changed, ['gateway.log_max_backups']);
  assert.is(changes.length, 1);
  assert.is(changes[0]!.config.gateway.log_max_backups, 5);
  h.remove();
});

test('a watch started from the config its host loaded tells the next edit against that config', async () => {
  const h = tempHome();
  h.writeConfig({ version: 2, heartbeat: { interval: 30 } });
  const loaded = loadConfig({ env: h.env });
  // The files as the watch starts no longer hold what the host loaded: the change shows with the next edit.
  h.writeConfig({ version: 2, heartbeat: { interval: 45 } });
  const bus = new InProcessBus();
  const watcher = watchConfig({ bus, env: h.env, intervalMs: FAST_MS, loaded, onChange: () => undefined });
  const reloaded = firstValueFrom(bus.on('config.reloaded'));
  h.writeConfig({ version: 2, heartbeat: { interval: 45 }, tools: { exec: { enabled: false } } });
  const event = await reloaded;
  watcher.stop();
  assert.equal(event.data.changed, ['heartbeat.interval', 'tools.exec.enabled']);
  h.remove();
});

test('an edit of the credentials file reloads too, naming the changed secret by path only', async () => {
  const h = tempHome();
  h.writeConfig({ version: 2, model_list: [{ model_name: 'm', model: 'x' }] });
  const bus = new InProcessBus();
  const watcher = watchConfig({ bus, env: h.env, intervalMs: FAST_MS, onChange: () => undefined });
  const reloaded = firstValueFrom(bus.on('config.reloaded'));
  h.writeCredentials({ model_list: { m: { api_keys: ['sk-new-key-000000001'] } } });
  const event = await reloaded;
  watcher.stop();
  assert.equal(event.data.changed, ['model_list']);
  h.remove();
});

test('deleting config.json keeps the running config and says why; putting it back applies its changes', async () => {
  const h = tempHome();
  h.writeConfig({ version: 2, channel_list: { telegram: { enabled: true, settings: { token: '123:abc' } } } });
  const bus = new InProcessBus();
  const changes: LoadedConfig[] = [];
  const logged: string[] = [];
  const watcher = watchConfig({
    bus,
    env: h.env,
    intervalMs: FAST_MS,
    onChange: (l) => changes.push(l),
    log: (line) => logged.push(line),
  });
  const rejected = firstValueFrom(bus.on('config.rejected'));
  rmSync(h.path('config.json'));
  const event = await within(rejected, 'config.rejected');
  // The watcher checks every FAST_MS: what it said stays the same over several checks.
  await quietValue(() => [...logged, changes.length], { quietMs: FAST_MS * 10 });
  const problem = `(file): ${h.path('config.json')} is missing; put it back to apply changes`;
  assert.equal(event.data.problems, [problem]);
  assert.equal(
    logged,
    [`config: the edit of ${h.path('config.json')} was rejected and the running config stays (${problem})`],
    'said once, not every check',
  );
  assert.is(changes.length, 0, 'the defaults never replaced the running config');
  const reloaded = firstValueFrom(bus.on('config.reloaded'));
  h.writeConfig({
    version: 2,
    heartbeat: { interval: 45 },
    channel_list: { telegram: { enabled: true, settings: { token: '123:abc' } } },
  });
  assert.equal((await within(reloaded, 'config.reloaded')).data.changed, ['heartbeat.interval']);
  watcher.stop();
  assert.is(changes.length, 1);
  h.remove();
});

test('a config path that cannot be read (a folder in its place) keeps the running config', async () => {
  const h = tempHome();
  h.writeConfig({ version: 2 });
  const bus = new InProcessBus();
  const changes: LoadedConfig[] = [];
  const watcher = watchConfig({
    bus,
    env: h.env,
    intervalMs: FAST_MS,
    onChange: (l) => changes.push(l),
    log: () => undefined,
  });
  const rejected = firstValueFrom(bus.on('config.rejected'));
  rmSync(h.path('config.json'));
  mkdirSync(h.path('config.json'));
  assert.equal((await within(rejected, 'config.rejected')).data.problems, [
    `(file): ${h.path('config.json')} cannot be read (EISDIR)`,
  ]);
  watcher.stop();
  assert.is(changes.length, 0);
  h.remove();
});

test(
  'with no config file at start (defaults), ' +
    'a config file that appears is loaded, and its later deletion is refused',
  async () => {
    const h = tempHome();
    const bus = new InProcessBus();
    const changes: LoadedConfig[] = [];
    const watcher = watchConfig({
      bus,
      env: h.env,
      intervalMs: FAST_MS,
      onChange: (l) => changes.push(l),
      log: () => undefined,
    });
    const reloaded = firstValueFrom(bus.on('config.reloaded'));
    h.writeConfig({ version: 2, heartbeat: { interval: 45 } });
    assert.equal((await within(reloaded, 'config.reloaded')).data.changed, ['heartbeat.interval']);
    const rejected = firstValueFrom(bus.on('config.rejected'));
    rmSync(h.path('config.json'));
    await within(rejected, 'config.rejected');
    watcher.stop();
    assert.equal(
      changes.map((c) => c.config.heartbeat.interval),
      [45],
    );
    h.remove();
  },
);

test.run();
