import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Database, RootDatabase } from 'lmdb';
import { closeEnvironment, openEnvironment } from '../lmdb.js';

/** Turns texts into vectors (one per text, in order); supplied by whoever knows the embedding model's endpoint. */
export interface Embedder {
  /** Names the model: vectors of different models are cached apart. */
  model: string;
  embed(texts: string[]): Promise<number[][]>;
}

/** How many texts one embedding request carries at most. */
const BATCH = 64;

/**
 * Embeddings by content hash (model and text), in lmdb under `state/memory-embeddings/`: a passage is embedded once,
 * however often the index is rebuilt, and a text said twice is embedded once.
 */
export class EmbeddingCache {
  private root: RootDatabase | undefined;
  private vectors: Database<Buffer, Buffer> | undefined;

  constructor(private readonly workspace: string) {}

  /** Each text's vector: from the cache, the rest asked of `embedder` in batches and cached. */
  async vectorsOf(embedder: Embedder, texts: string[]): Promise<Float32Array[]> {
    const db = this.db();
    const keys = texts.map((text) => createHash('sha256').update(`${embedder.model}\u0000${text}`).digest());
    const out: Array<Float32Array | undefined> = keys.map((key) => {
      const bytes = db.getBinary(key);
      return bytes ? new Float32Array(new Uint8Array(bytes).buffer) : undefined;
    });
    const missing = out.flatMap((v, i) => (v ? [] : [i]));
    for (let start = 0; start < missing.length; start += BATCH) {
      const batch = missing.slice(start, start + BATCH);
      const got = await embedder.embed(batch.map((i) => texts[i]!));
      if (got.length !== batch.length)
        throw new Error(`the embedding model answered ${got.length} vectors for ${batch.length} texts`);
      batch.forEach((i, n) => {
        const vector = Float32Array.from(got[n]!);
        out[i] = vector;
        void db.put(keys[i]!, Buffer.from(vector.buffer));
      });
    }
    await this.root?.flushed;
    return out as Float32Array[];
  }

  /** Drops every cached vector (a forgotten sender's words must not stay behind as their embeddings). */
  clear(): void {
    if (!this.vectors && !existsSync(this.path())) return;
    this.db().clearSync();
  }

  close(): void {
    if (this.root) void closeEnvironment(this.root);
    this.root = undefined;
    this.vectors = undefined;
  }

  private path(): string {
    return join(this.workspace, 'state', 'memory-embeddings');
  }

  private db(): Database<Buffer, Buffer> {
    if (this.vectors) return this.vectors;
    const path = this.path();
    mkdirSync(path, { recursive: true, mode: 0o700 });
    this.root = openEnvironment({ path, maxDbs: 2 });
    this.vectors = this.root.openDB<Buffer, Buffer>({ name: 'vectors', keyEncoding: 'binary', encoding: 'binary' });
    return this.vectors;
  }
}
