import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';

/** `<AGENT_HOME>/plugin-failures.json`: owner-only, beside the config, out of the workspace. */
export const PLUGIN_FAILURES_FILE = 'plugin-failures.json';

const failureSchema = z.object({ fingerprint: z.string(), reason: z.string(), at: z.string() });
export type PluginFailure = z.infer<typeof failureSchema>;
const failuresSchema = z.record(z.string(), failureSchema);

/**
 * The plugins that failed to load, each with the fingerprint of its files and entry then, so that a broken plugin
 * is not loaded (and waited for) again on every run until something about it changes.
 */
export class PluginFailures {
  private readonly file: string;
  private records: Record<string, PluginFailure>;

  constructor(home: string) {
    this.file = join(home, PLUGIN_FAILURES_FILE);
    this.records = this.read();
  }

  /** The failure recorded for this plugin with this fingerprint, if there is one. */
  known(name: string, fingerprint: string): PluginFailure | undefined {
    const record = this.records[name];
    return record?.fingerprint === fingerprint ? record : undefined;
  }

  record(name: string, fingerprint: string, reason: string, at = new Date()): void {
    this.records = { ...this.read(), [name]: { fingerprint, reason, at: at.toISOString() } };
    this.write();
  }

  forget(name: string): void {
    if (!this.records[name]) return;
    const { [name]: _gone, ...rest } = this.read();
    this.records = rest;
    this.write();
  }

  /** A file that is missing or damaged holds no records: the plugins are simply loaded again. */
  private read(): Record<string, PluginFailure> {
    try {
      const parsed = failuresSchema.safeParse(JSON.parse(readFileSync(this.file, 'utf8')));
      return parsed.success ? parsed.data : {};
    } catch {
      return {};
    }
  }

  /** Atomic (a temp file with an unpredictable name, created exclusively, then renamed); best effort. */
  private write(): void {
    const temp = `${this.file}.${randomBytes(8).toString('hex')}.tmp`;
    try {
      writeFileSync(temp, `${JSON.stringify(this.records, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
      renameSync(temp, this.file);
    } catch {
      rmSync(temp, { force: true });
    }
  }
}
