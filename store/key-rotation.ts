import * as z from 'zod';
import { readRegular, writeAtomic } from './files/regular-file.js';
import { holdStateDir } from './state.js';

const FILE = 'key-rotation.json';

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
  private state: Record<string, KeyRotation> | undefined;
  /** Said once until a write succeeds again: a request that rotates writes every time. */
  private reported = false;

  /** `report` hears why the file could not be written (a link planted at it, a full disk); the rotation goes on. */
  constructor(
    private readonly workspace: string,
    private readonly report: (problem: string) => void = () => undefined,
  ) {}

  read(modelName: string): KeyRotation | undefined {
    return this.loaded()[modelName];
  }

  write(modelName: string, rotation: KeyRotation): void {
    const state = this.loaded();
    state[modelName] = rotation;
    // A workspace that cannot be written costs only the spread over runs: this process still rotates.
    try {
      const dir = holdStateDir(this.workspace, true);
      try {
        writeAtomic(dir, FILE, `${JSON.stringify(state)}\n`);
      } finally {
        dir.close();
      }
      this.reported = false;
    } catch (error) {
      if (!this.reported) this.report(`the key rotation was not saved: ${(error as Error).message}`);
      this.reported = true;
    }
  }

  private loaded(): Record<string, KeyRotation> {
    if (this.state) return this.state;
    try {
      const dir = holdStateDir(this.workspace);
      let bytes: Buffer | undefined;
      try {
        bytes = readRegular(dir, FILE);
      } finally {
        dir.close();
      }
      const parsed = bytes ? fileSchema.safeParse(JSON.parse(bytes.toString('utf8'))) : undefined;
      this.state = parsed?.success ? parsed.data : {};
    } catch {
      this.state = {};
    }
    return this.state;
  }
}
