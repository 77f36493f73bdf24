import { suite, type Test } from 'uvu';
import { startVendorServer, type VendorServer } from './vendor-server.js';

/**
 * A suite with one loopback vendor server: started before the first test, emptied before each, closed
 * after the last. `server` stands for it in test bodies.
 */
export function vendorSuite(name: string): { test: Test; server: VendorServer } {
  const test = suite(name);
  let current: VendorServer | undefined;
  const live = (): VendorServer => {
    if (!current) throw new Error('the vendor server is not started yet');
    return current;
  };
  test.before(async () => {
    current = await startVendorServer();
  });
  test.after(async () => {
    await current?.close();
  });
  test.before.each(() => live().reset());
  const server: VendorServer = {
    get url() {
      return live().url;
    },
    get requests() {
      return live().requests;
    },
    reply: (...replies) => live().reply(...replies),
    reset: () => live().reset(),
    close: () => live().close(),
  };
  return { test, server };
}
