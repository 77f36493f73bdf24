import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The benchmarks' instant model (bench/instant-model.ts) in a child process: a user message gets one `todo` tool
 * call, a tool result and a request without tools (the summarizer's) get text.
 */
export async function startInstantModel(): Promise<{ url: string; close(): void }> {
  const script = fileURLToPath(new URL('../../bench/instant-model.ts', import.meta.url));
  const stdio = ['pipe', 'pipe', 'inherit'] as const;
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', script], { stdio: [...stdio] });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.stdout!.once('data', (line: Buffer) => resolve(line.toString().trim()));
  });
  return { url, close: () => void child.stdin!.end() };
}
