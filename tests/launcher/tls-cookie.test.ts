import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createLauncherApp } from '../../adapters/launcher/app.js';
import { PASSWORD, tempHome } from './launcher-harness.js';

/** A throwaway self-signed certificate for 127.0.0.1, made with the system's openssl. */
function selfSigned(dir: string): { key: Buffer; cert: Buffer } {
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-subj',
      '/CN=127.0.0.1',
      '-days',
      '1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(key), cert: readFileSync(cert) };
}

function postSetup(port: number, setupToken: string): Promise<string | undefined> {
  const body = JSON.stringify({ password: PASSWORD, confirm: PASSWORD, setup_token: setupToken });
  return new Promise((resolve, reject) => {
    const req = request(
      // The certificate is the one this test just made; only its trust chain is missing.
      {
        host: '127.0.0.1',
        port,
        path: '/api/auth/setup',
        method: 'POST',
        rejectUnauthorized: false,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        resolve(res.headers['set-cookie']?.[0]);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test('over TLS the session cookie is also Secure', async () => {
  const { home, remove } = tempHome();
  const launcher = await createLauncherApp({ home });
  const server = createServer(selfSigned(home), launcher.app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const cookie = await postSetup((server.address() as AddressInfo).port, launcher.setupToken);
    const attributes = (cookie ?? '')
      .split('; ')
      .slice(1)
      .filter((a) => !a.startsWith('Expires='));
    assert.equal(attributes, ['Path=/', 'HttpOnly', 'Secure', 'SameSite=Strict']);
  } finally {
    server.closeAllConnections();
    server.close();
    await launcher.close();
    remove();
  }
});

test.run();
