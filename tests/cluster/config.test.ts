import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { clusterSettings } from '../../actors/cluster/settings.js';
import { ConfigError, loadConfig } from '../../store/config/index.js';
import { tempHome } from '../config/home.js';

// Each case writes a config in a home of its own, removed after the file's last case.
const homes: Array<ReturnType<typeof tempHome>> = [];
const home = (): ReturnType<typeof tempHome> => {
  const made = tempHome();
  homes.push(made);
  return made;
};
test.after(() => {
  for (const made of homes) made.remove();
});

test('no cluster configured: the gateway runs alone', () => {
  const h = home();
  h.writeConfig({ version: 2, gateway: { port: 18811 } });
  assert.is(clusterSettings(loadConfig({ env: h.env })), undefined);
});

test('cluster.url and .security.yml credentials make the settings; the flags win over the config', () => {
  const h = home();
  h.writeConfig({
    version: 2,
    gateway: { port: 18812 },
    cluster: { url: 'nats://10.0.0.5:4222', id: 'node-a', lease_ttl_ms: 4000 },
  });
  h.writeCredentials({ cluster: { user: 'tern', password: 'nats-secret-0001' } });
  const loaded = loadConfig({ env: h.env });
  assert.equal(clusterSettings(loaded), {
    url: 'nats://10.0.0.5:4222',
    id: 'node-a',
    ttlMs: 4000,
    partitions: 0,
    user: 'tern',
    password: 'nats-secret-0001',
  });
  assert.equal(clusterSettings(loaded, { url: 'nats://127.0.0.1:4333', id: 'node-z' })?.url, 'nats://127.0.0.1:4333');
  assert.equal(clusterSettings(loaded, { url: 'nats://127.0.0.1:4333', id: 'node-z' })?.id, 'node-z');
});

test('a bad cluster block is a config error naming the field and what is allowed', () => {
  const h = home();
  h.writeConfig({ version: 2, cluster: { url: 'http://nats:4222', id: 'a.b', lease_ttl_ms: 10 } });
  try {
    loadConfig({ env: h.env });
    assert.unreachable('loadConfig should throw');
  } catch (error) {
    assert.instance(error, ConfigError);
    assert.equal((error as ConfigError).problems, [
      'cluster.url: is not a NATS server URL (allowed: ' +
        'nats://HOST:PORT, tls://HOST:PORT, several separated by commas, or "")',
      'cluster.id: "a.b" is not a gateway id (allowed: 1 to 64 letters, digits, - and _)',
      'cluster.lease_ttl_ms: 10 is too small (allowed: whole numbers 1000 to 600000)',
    ]);
  }
});

test('--cluster with a URL that is not NATS is refused, naming the flag', () => {
  const h = home();
  h.writeConfig({ version: 2 });
  assert.throws(
    () => clusterSettings(loadConfig({ env: h.env }), { url: 'localhost:4222' }),
    /--cluster: "localhost:4222" is not a NATS server URL/,
  );
});

test.run();
