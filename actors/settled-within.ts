const timeout = (ms: number): Promise<'timeout'> =>
  new Promise((resolve) => setTimeout(() => resolve('timeout'), ms).unref());

/** True when every piece of work settled within `ms`; the timer never keeps the process alive. */
export async function settledWithin(work: Array<Promise<unknown>>, ms: number): Promise<boolean> {
  const done = Promise.allSettled(work).then(() => 'done' as const);
  return (await Promise.race([done, timeout(ms)])) === 'done';
}
