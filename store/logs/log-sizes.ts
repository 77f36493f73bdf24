import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadedConfig } from '../config/index.js';
import { logDir } from '../paths.js';
import { rotationOf } from './logger.js';

export interface LogSize {
  path: string;
  bytes: number;
  /** The size rotation keeps it under (its archives included in `bytes`); none for the event log, which only grows. */
  limitBytes?: number;
}

const sizeOf = (path: string): number => statSync(path, { throwIfNoEntry: false })?.size ?? 0;

/** A rotated log and its numbered archives. */
function rotated(path: string, maxBytes: number, backups: number): LogSize {
  let bytes = sizeOf(path);
  for (let n = 1; n <= backups; n++) bytes += sizeOf(`${path}.${n}`);
  return { path, bytes, limitBytes: maxBytes * (backups + 1) };
}

/** The disk the logs of this config take: each rotated log with its archives, and the event log. */
export function logSizes(loaded: LoadedConfig): LogSize[] {
  const { maxBytes, backups } = rotationOf(loaded);
  const files = [
    join(loaded.home, 'logs', 'gateway.log'),
    join(loaded.workspace, 'heartbeat.log'),
    ...(loaded.logFile ? [loaded.logFile] : []),
  ];
  return [
    ...files.map((path) => rotated(path, maxBytes, backups)),
    { path: join(logDir(loaded.workspace), 'data.mdb'), bytes: sizeOf(join(logDir(loaded.workspace), 'data.mdb')) },
  ];
}
