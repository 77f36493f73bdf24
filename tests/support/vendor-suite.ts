import { suite, type Test } from 'uvu';
import { copyOfHome, tempHome, type TempHome } from './temp-home.js';
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

export interface HomeAndVendor {
  home: TempHome;
  vendor: VendorServer;
}

/**
 * A suite whose every test gets a fresh AGENT_HOME and a fresh loopback vendor server, both gone after it; `setUp`
 * runs after they exist (a config to write, replies to queue).
 */
export function homeAndVendorSuite(
  name: string,
  setUp: (ctx: HomeAndVendor) => void | Promise<void> = () => {},
): Test<HomeAndVendor> {
  const test = suite<HomeAndVendor>(name);
  test.before.each(async (ctx) => {
    ctx.home = tempHome();
    ctx.vendor = await startVendorServer();
    await setUp(ctx);
  });
  test.after.each(async (ctx) => {
    await ctx.vendor.close();
    ctx.home.remove();
  });
  return test;
}

/**
 * A suite whose tests all start from the home `build` made, once, before the first test (turns it ran through the
 * CLI, a config it wrote): each test gets a copy of that home of its own, so what one test adds no other sees, and
 * the file pays for those turns once. One loopback vendor server serves the whole suite (the built config names it),
 * emptied before each test.
 */
export function builtHomeSuite(name: string, build: (ctx: HomeAndVendor) => void | Promise<void>): Test<HomeAndVendor> {
  const test = suite<HomeAndVendor>(name);
  let built: HomeAndVendor | undefined;
  test.before(async () => {
    built = { home: tempHome(), vendor: await startVendorServer() };
    await build(built);
  });
  test.after(async () => {
    await built?.vendor.close();
    built?.home.remove();
  });
  test.before.each((ctx) => {
    if (!built) throw new Error('the built home is not there: its build failed');
    built.vendor.reset();
    ctx.vendor = built.vendor;
    ctx.home = copyOfHome(built.home);
  });
  test.after.each((ctx) => ctx.home.remove());
  return test;
}
