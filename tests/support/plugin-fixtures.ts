// Plugin package folders for tests, written as a user (or npm) would leave them: a tern-plugin.json and its entry.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function writePlugin(dir: string, manifest: Record<string, unknown>, files: Record<string, string>): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'tern-plugin.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: manifest.name, version: manifest.version, type: 'module' }, null, 2),
  );
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

/** A trusted plugin adding `weather_now {city}`; its config names the unit (checked by its config schema). */
export function weatherPlugin(dir: string): string {
  return writePlugin(
    dir,
    {
      name: 'weather',
      version: '1.2.0',
      entry: 'index.js',
      capabilities: ['tools', 'config'],
      config_schema: { type: 'object', properties: { unit: { type: 'string', enum: ['C', 'F'] } }, required: ['unit'] },
    },
    {
      'index.js': `export default function activate(api) {
  api.registerTool({
    name: 'weather_now',
    description: 'The weather in a city right now',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    execute: async ({ city }) => 'sunny, 21 °' + api.config.unit + ' in ' + city,
  });
}
`,
    },
  );
}

/** An untrusted plugin run as a child process, adding `shout {text}` and the chat command `/shout`. */
export function shoutPlugin(dir: string): string {
  return writePlugin(
    dir,
    { name: 'shout', version: '0.3.0', entry: 'main.js', capabilities: ['tools', 'commands'] },
    {
      'main.js': `import { createInterface } from 'node:readline';
const send = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, method, params } = JSON.parse(line);
  if (id === undefined) return;
  if (method === 'plugin.hello') send({ jsonrpc: '2.0', id, result: {
    tools: [{
      name: 'shout',
      description: 'Says it louder',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    }],
    commands: [{ name: 'shout', description: 'Shout the rest of the message' }],
  } });
  else if (method === 'plugin.tool') {
    const loud = String(params.arguments.text).toUpperCase() + '! (pid ' + process.pid + ')';
    send({ jsonrpc: '2.0', id, result: { for_llm: loud } });
  } else if (method === 'plugin.command') {
    send({ jsonrpc: '2.0', id, result: { reply: params.args.toUpperCase() + '!' } });
  }
  else send({ jsonrpc: '2.0', id, error: { code: -32601, message: 'method not found' } });
});
`,
    },
  );
}

/** A trusted plugin whose entry does not parse. */
export function brokenPlugin(dir: string): string {
  return writePlugin(
    dir,
    { name: 'broken', version: '0.1.0', entry: 'index.js', capabilities: ['tools'] },
    {
      'index.js': `export default function activate(api) {
  api.registerTool({ name: 'nope'
}
`,
    },
  );
}

/** A trusted plugin adding a channel kind whose channel can never connect. */
export function flakyChannelPlugin(dir: string): string {
  return writePlugin(
    dir,
    { name: 'flaky', version: '2.0.0', entry: 'index.js', capabilities: ['channels'] },
    {
      'index.js': `export function activate(api) {
  api.registerChannel({
    kind: 'flaky-chat',
    create: () => ({
      kind: 'flaky-chat',
      capabilities: { commands: [], streaming: false, maxMessageLength: 1000 },
      start: async () => { throw new Error('cannot reach flaky.example'); },
      stop: async () => {},
      send: async () => '',
      edit: async () => {},
      typing: async () => {},
    }),
  });
}
`,
    },
  );
}

/** A plain plugin with nothing to do: enough for the states that never load it. */
export function idlePlugin(dir: string, name: string): string {
  return writePlugin(
    dir,
    { name, version: '1.0.0', entry: 'index.js', capabilities: [] },
    { 'index.js': 'export default function activate() {}\n' },
  );
}
