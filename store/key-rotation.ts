import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';

const rotationSchema = z.object({
  next_member: z.number().int().nonnegative(),
  next_key: z.array(z.number().int().nonnegative()),
});
export type KeyRotation = z.infer<typeof rotationSchema>;

const fileSchema = z.record(z.string(), rotationSchema);

/**
 * Where each `model_name`'s key rotation stands, in `<workspace>/state/key-rotation.json`: the pool member the
 * next request starts at and each member's next key (indexes only, never a key). Read once, written whole on
 * every change (temp file and rename), so the next process, a one-shot `tern agent` included, goes on from there.
 * A missing or damaged file starts every pool at its first key.
 */
export class KeyRotationFile {
  private readonly file: string;
  private state: Record<string, KeyRotation> | undefined;

  constructor(private readonly workspace: string) {
    this.file = join(workspace, 'state', 'key-rotation.json');
  }

  read(modelName: string): KeyRotation | undefined {
    return this.loaded()[modelName];
  }

  write(modelName: string, rotation: KeyRotation): void {
    const state = this.loaded();
    state[modelName] = rotation;
    try {
      mkdirSync(join(this.workspace, 'state'), { recursive: true });
      const temp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(temp, `${JSON.stringify(state)}\n`, { mode: 0o600 });
      renameSync(temp, this.file);
    } catch {
      // A workspace that cannot be written costs only the spread over runs: this process still rotates.
    }
  }

  private loaded(): Record<string, KeyRotation> {
    if (this.state) return this.state;
    try {
      const parsed = fileSchema.safeParse(JSON.parse(readFileSync(this.file, 'utf8')));
      this.state = parsed.success ? parsed.data : {};
    } catch {
      this.state = {};
    }
    return this.state;
  }
}
