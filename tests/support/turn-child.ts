// A process that runs one turn and is meant to be killed mid-turn. Prints `requested <turn>` once the model
// has been asked. Usage: turn-child.ts AGENT_HOME
import { Runtime } from '../../actors/runtime.js';
import { loadConfig } from '../../store/config/index.js';
import { message } from './turn-fixture.js';

const env = { ...process.env, AGENT_HOME: process.argv[2]!, AGENT_CONFIG: '' };
const runtime = Runtime.start({ loaded: loadConfig({ env }), env, command: 'turn-child', logError: () => {} });
runtime.bus.on('provider.requested').subscribe((e) => {
  void runtime.log.flushed().then(() => process.stdout.write(`requested ${e.turn}\n`));
});
await runtime.ask(message('a question that never gets its answer', 's1'));
