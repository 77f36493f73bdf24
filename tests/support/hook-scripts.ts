// Small process hooks for tests: a node script speaking the hook protocol (JSON-RPC 2.0, one object per line),
// with the handlers a test gives as JavaScript source. A handler returns the `result` to send; `NEVER` sends none.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `handlers` is the source of an object literal:
 * `{ before_tool: (params) => ({ action: 'continue' }), event: (e) => … }`.
 * `hello` defaults to `{ ok: true }`, every other point to `{ action: 'continue' }`. Helpers in scope:
 * `appendFileSync`, `existsSync`, `writeFileSync`, `NEVER`.
 */
export function writeHookScript(dir: string, name: string, handlers: string): string {
  const path = join(dir, `${name}.mjs`);
  writeFileSync(
    path,
    `import { createInterface } from 'node:readline';
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
const NEVER = Symbol('never');
const handlers = ${handlers};
const send = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
createInterface({ input: process.stdin }).on('line', async (line) => {
  const message = JSON.parse(line);
  const point = message.method.replace(/^hook\\./, '');
  if (message.id === undefined) {
    if (point === 'event' && handlers.event) handlers.event(message.params);
    return;
  }
  const handler = handlers[point];
  const result = handler ? await handler(message.params) : point === 'hello' ? { ok: true } : { action: 'continue' };
  if (result !== NEVER) send({ jsonrpc: '2.0', id: message.id, result });
});
`,
  );
  return path;
}
