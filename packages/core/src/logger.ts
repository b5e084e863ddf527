/**
 * The logging surface core and adapters write to. It has pino's `level(obj, msg)` shape, so a
 * pino logger can be passed as is; `console`-style loggers need a two-line wrapper.
 */
export interface Logger {
  /** Something was degraded or dropped on purpose (lossy projection, tolerant read). */
  warn(obj: Record<string, unknown>, msg?: string): void;
  /** A failure the library recovered from or reported elsewhere. */
  error?(obj: Record<string, unknown>, msg?: string): void;
  /** Informational. */
  info?(obj: Record<string, unknown>, msg?: string): void;
  /** Verbose diagnostics. */
  debug?(obj: Record<string, unknown>, msg?: string): void;
}

/** A logger that drops everything: the default everywhere. */
export const silentLogger: Logger = {
  warn() {},
  error() {},
  info() {},
  debug() {},
};

/** One recorded log call (see {@link createMemoryLogger}). */
export interface LogRecord {
  level: 'warn' | 'error' | 'info' | 'debug';
  obj: Record<string, unknown>;
  msg: string | undefined;
}

/** A logger that keeps every record in memory: handy in tests and for surfacing warnings. */
export interface MemoryLogger extends Logger {
  /** Everything logged so far, in order. */
  readonly records: LogRecord[];
  /** Only the WARN records. */
  warnings(): LogRecord[];
}

/** Creates a {@link MemoryLogger}. */
export function createMemoryLogger(): MemoryLogger {
  const records: LogRecord[] = [];
  const at =
    (level: LogRecord['level']) =>
    (obj: Record<string, unknown>, msg?: string): void => {
      records.push({ level, obj, msg });
    };
  return {
    records,
    warn: at('warn'),
    error: at('error'),
    info: at('info'),
    debug: at('debug'),
    warnings: () => records.filter((r) => r.level === 'warn'),
  };
}

/**
 * A logger that adds `fields` to every entry (the entry's own fields win), like pino's
 * `child`. The call runtime binds `request_id` and `session_id` this way, so every WARN an
 * adapter writes during a call (a dropped block, a repair) names the session and the request.
 */
export function withLogFields(logger: Logger, fields: Record<string, unknown>): Logger {
  const bind =
    (write: ((obj: Record<string, unknown>, msg?: string) => void) | undefined) =>
    (obj: Record<string, unknown>, msg?: string): void => {
      write?.call(logger, { ...fields, ...obj }, msg);
    };
  return {
    warn: bind(logger.warn),
    error: bind(logger.error),
    info: bind(logger.info),
    debug: bind(logger.debug),
  };
}
