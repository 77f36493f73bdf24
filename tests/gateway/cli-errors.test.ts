import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from '../support/cli.js';
import { tempHome } from '../support/temp-home.js';

test('tern gateway on a port in use exits 1 with one line saying how to fix it', async () => {
  const home = tempHome();
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as { port: number }).port;
  writeFileSync(
    join(home.home, 'config.json'),
    JSON.stringify({ version: 2, gateway: { port }, heartbeat: { enabled: false } }),
  );
  try {
    const result = runCli(['gateway'], home.env);
    assert.is(result.code, 1);
    assert.is(
      result.stderr,
      `tern: cannot listen on 127.0.0.1:${port} (EADDRINUSE). ` +
        `Stop what uses that port, or set gateway.port in config.json.\n`,
    );
  } finally {
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
    home.remove();
  }
});

test('tern gateway with an invalid gateway block exits 1 naming the field and the allowed values', () => {
  const home = tempHome();
  writeFileSync(
    join(home.home, 'config.json'),
    JSON.stringify({ version: 2, gateway: { port: 70000, log_level: 'loud' } }),
  );
  const result = runCli(['gateway', '--json'], home.env);
  assert.is(result.code, 1);
  const body = JSON.parse(result.stdout) as { ok: boolean; error: { code: string; message: string } };
  assert.is(body.ok, false);
  assert.match(body.error.message, /gateway\.port: 70000 is too large \(allowed: whole numbers 1 to 65535\)/);
  assert.match(body.error.message, /gateway\.log_level/);
  home.remove();
});

test.run();
