import { InProcessBus } from '../../bus/index.js';
import { busContract } from './bus-suite.js';

busContract('in process', async (log, redact) => ({
  bus: new InProcessBus(log, redact ? { redact } : {}),
  log,
  dispose: () => undefined,
}));
