// What a turn sends: the request body of a "ping" with the default tools (an onboarded workspace, the starter files
// in the prompt), and how much of a second turn's request repeats the first's byte for byte from the start, which is
// what a provider's prompt cache can reuse. Measured against a loopback chat-completions server that records bodies.
import { sessionKeyOf } from '../actors/agent.js';
import { Runtime } from '../actors/runtime.js';
import { loadConfig } from '../store/config/index.js';
import { ensureWorkspace } from '../store/workspace.js';
import { writeConfig } from '../tests/support/turn-fixture.js';
import { tempHome } from '../tests/support/temp-home.js';
import { completion } from '../tests/support/vendor-chat-completions.js';
import { startVendorServer } from '../tests/support/vendor-server.js';
import { round, type BenchRow } from './row.js';

function commonPrefix(a: Buffer, b: Buffer): number {
  const length = Math.min(a.length, b.length);
  let i = 0;
  while (i < length && a[i] === b[i]) i++;
  return i;
}

export async function bench(): Promise<BenchRow[]> {
  const home = tempHome();
  const vendor = await startVendorServer();
  writeConfig(home.home, vendor.url);
  ensureWorkspace(home.workspace);
  const runtime = Runtime.start({
    loaded: loadConfig({ env: home.env }),
    env: home.env,
    command: 'bench',
    logError: () => {},
  });
  try {
    const key = sessionKeyOf({ agent: 'main', channel: 'cli', dimensions: [['chat', 'direct:bench']] });
    const send = (text: string) =>
      runtime.ask({
        agent: 'main',
        session_key: key,
        channel: 'cli',
        account: 'default',
        chat: 'direct:bench',
        sender: 'bench',
        message_id: `m_${text}`,
        text,
        remote: false,
        media: [],
      });
    vendor.reply(completion({ content: 'pong' }), completion({ content: 'Noted.' }));
    await send('ping');
    await send('What time is it?');
    const [first, second] = vendor.requests.map((r) => r.body);
    return [
      { name: 'prompt.ping_request_bytes', value: first!.length, unit: 'bytes' },
      {
        name: 'prompt.cacheable_prefix_ratio',
        value: round(commonPrefix(first!, second!) / second!.length, 3),
        unit: 'ratio',
      },
    ];
  } finally {
    await runtime.close();
    await vendor.close();
    home.remove();
  }
}
