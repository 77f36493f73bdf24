import { join } from 'node:path';
import { inspect } from 'node:util';
import type { LoadedConfig } from '../config/index.js';
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

  constructor(private readonly files: RotatingFile[], level: Level, redactor: Redactor | (() => Redactor), private readonly now: () => Date = () => new Date()) {
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

export function rotationOf(loaded: LoadedConfig): RotationSettings {
  return { maxBytes: loaded.config.gateway.log_max_size_mb * 1024 * 1024, backups: loaded.config.gateway.log_max_backups };
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
  gateway = new Logger([main, ...extra], level, redactor, now);
  for (const text of problems) gateway.warn(text);
  const heartbeatFile = new RotatingFile(join(loaded.workspace, 'heartbeat.log'), rotation, problem);
  const heartbeat = new Logger([heartbeatFile], level, redactor, now);
  const logger = gateway;
  return {
    gateway: logger,
    heartbeat,
    panic: (error) => {
      const panicFile = new RotatingFile(panicPath, rotation);
      panicFile.write(redactor().text(`${(now ?? (() => new Date()))().toISOString()} PANIC ${inspect(error)}`));
      panicFile.close();
    },
    close: () => {
      logger.close();
      heartbeat.close();
    },
  };
}
