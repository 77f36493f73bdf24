import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Starts the instant model (bench/instant-model.ts) in a child process, so its CPU is not Tern's; stop it by ending its
 * stdin.
 */
export async function instantModel(args: string[] = []): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./instant-model.ts', import.meta.url)), ...args],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.stdout!.once('data', (line: Buffer) => resolve(line.toString().trim()));
  });
  return { child, url };
}
