import { closeSync, constants, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { inspect } from 'node:util';
import type { LoadedConfig } from '../config/index.js';
import { HeldDirectory } from '../files/held-directory.js';
import { openRegular } from '../files/regular-file.js';
import { RotatingFile, trimToLatest, type RotationSettings } from './rotating-file.js';
import { redactorOf, type Redactor } from '../config/index.js';
import { logKey, logMessage, logValue } from './log-text.js';

export const LEVELS = ['debug', 'info', 'warn', 'error', 'fatal'] as const;
export type Level = (typeof LEVELS)[number];

export type LogFields = Record<string, string | number | boolean | undefined>;

/** Each value is masked before it is escaped: an escaped secret would no longer match its mask. */
function formatFields(fields: LogFields | undefined, redactor: Redactor): string {
  if (!fields) return '';
  return Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${logKey(k)}=${typeof v === 'string' ? logValue(redactor.text(v)) : String(v)}`)
    .join('');
}

/** Lines at or above a level, into rotating files, through the redactor (a getter follows config reloads). */
export class Logger {
  private readonly threshold: number;
  private readonly redactor: () => Redactor;

  constructor(
    private readonly files: RotatingFile[],
    level: Level,
    redactor: Redactor | (() => Redactor),
    private readonly now: () => Date = () => new Date(),
  ) {
    this.threshold = LEVELS.indexOf(level);
    this.redactor = typeof redactor === 'function' ? redactor : () => redactor;
  }

  enabled(level: Level): boolean {
    return LEVELS.indexOf(level) >= this.threshold;
  }

  log(level: Level, message: string, fields?: LogFields): void {
    if (!this.enabled(level)) return;
    const redactor = this.redactor();
    const text = logMessage(redactor.text(message));
    const line = `${this.now().toISOString()} ${level.toUpperCase()} ${text}${formatFields(fields, redactor)}`;
    this.files.forEach((file) => file.write(line));
  }

  debug = (message: string, fields?: LogFields): void => this.log('debug', message, fields);
  info = (message: string, fields?: LogFields): void => this.log('info', message, fields);
  warn = (message: string, fields?: LogFields): void => this.log('warn', message, fields);
  error = (message: string, fields?: LogFields): void => this.log('error', message, fields);

  close(): void {
    this.files.forEach((file) => file.close());
  }
}

/** The gateway's log files: `logs/gateway.log`, `<workspace>/heartbeat.log`, `AGENT_LOG_FILE`, `logs/panic.log`. */
export interface GatewayLogs {
  gateway: Logger;
  heartbeat: Logger;
  /** Writes an uncaught error, synchronously, to the panic log. */
  panic(error: unknown): void;
  close(): void;
}

/** Room kept on the disk for the panic log: a panic on a full disk still has room for its cause. */
const PANIC_RESERVE_BYTES = 64 * 1024;
const { O_APPEND, O_CREAT, O_WRONLY } = constants;

/**
 * A file of `PANIC_RESERVE_BYTES` written at the start (`logs/panic.reserve`, with `panic.log` created empty beside it,
 * so the panic needs no new file). A panic deletes it first and writes its line into the space that frees.
 */
class PanicReserve {
  private readonly folder: string;
  private readonly name: string;

  constructor(path: string) {
    this.folder = dirname(path);
    this.name = basename(path);
    this.take();
    // Made now so the panic needs no new file; if it cannot be, the panic tries then.
    this.inFolder((dir) => closeSync(openRegular(dir, 'panic.log', O_WRONLY | O_APPEND | O_CREAT, 0o600).fd));
  }

  /** Like the logs beside it, opened through its held folder: a link planted at its name is never followed. */
  take(): void {
    // A disk already full keeps what it has; a partial reserve still frees what it holds.
    this.inFolder((dir) => {
      const { fd, stats } = openRegular(dir, this.name, O_WRONLY | O_CREAT, 0o600);
      try {
        if (stats.size < PANIC_RESERVE_BYTES) {
          writeSync(fd, Buffer.alloc(PANIC_RESERVE_BYTES), 0, PANIC_RESERVE_BYTES, 0);
        }
      } finally {
        closeSync(fd);
      }
    });
  }

  release(): void {
    // Not there to free: the line may still fit. Removing an entry never follows it.
    this.inFolder((dir) => rmSync(dir.at(this.name), { force: true }));
  }

  /** Best effort: the reserve never stops what it is kept for. */
  private inFolder(act: (dir: HeldDirectory) => void): void {
    try {
      const dir = HeldDirectory.openTrusted(this.folder, { mode: 0o700 });
      try {
        act(dir);
      } finally {
        dir.close();
      }
    } catch {
      // Full, unwritable, or not a regular file there: nothing reserved.
    }
  }
}

export function rotationOf(loaded: LoadedConfig): RotationSettings {
  return {
    maxBytes: loaded.config.gateway.log_max_size_mb * 1024 * 1024,
    backups: loaded.config.gateway.log_max_backups,
  };
}

export function openGatewayLogs(loaded: LoadedConfig, now?: () => Date): GatewayLogs {
  const rotation = rotationOf(loaded);
  const level = loaded.config.gateway.log_level;
  // `loaded.config` is replaced on a hot reload, and with it the secrets to mask.
  const redactor = (): Redactor => redactorOf(loaded.config);
  // A log that cannot be written safely is said in gateway.log (once it is open) and on stderr.
  const problems: string[] = [];
  let gateway: Logger | undefined;
  const problem = (text: string): void => {
    process.stderr.write(`tern: warning: ${logMessage(text)}\n`);
    if (gateway) gateway.warn(text);
    else problems.push(text);
  };
  const main = new RotatingFile(join(loaded.home, 'logs', 'gateway.log'), rotation, problem);
  const extra = loaded.logFile ? [new RotatingFile(loaded.logFile, rotation, problem)] : [];
  const panicPath = join(loaded.home, 'logs', 'panic.log');
  trimToLatest(panicPath, rotation.maxBytes);
  const reserve = new PanicReserve(join(loaded.home, 'logs', 'panic.reserve'));
  gateway = new Logger([main, ...extra], level, redactor, now);
  for (const text of problems) gateway.warn(text);
  const heartbeatFile = new RotatingFile(join(loaded.workspace, 'heartbeat.log'), rotation, problem);
  const heartbeat = new Logger([heartbeatFile], level, redactor, now);
  const logger = gateway;
  return {
    gateway: logger,
    heartbeat,
    panic: (error) => {
      // On a full disk the reserve's space is what the line is written into; taken again for the next panic.
      reserve.release();
      try {
        const panicFile = new RotatingFile(panicPath, rotation);
        panicFile.write(redactor().text(`${(now ?? (() => new Date()))().toISOString()} PANIC ${inspect(error)}`));
        panicFile.close();
      } catch {
        // Nowhere left to say it: the panic handler must not throw on top of what it reports.
      }
      reserve.take();
    },
    close: () => {
      logger.close();
      heartbeat.close();
    },
  };
}
