import type { Logger } from '@yourtool/core';
import { redactSecrets } from '@yourtool/core/adapter';

/** The levels {@link createStderrLogger} can write, lowest first. */
export type StderrLogLevel = 'debug' | 'info' | 'warn' | 'error';

const RANK: Record<StderrLogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Options of {@link createStderrLogger}. */
export interface StderrLoggerOptions {
  /** The lowest level written. Default `warn`. */
  level?: StderrLogLevel;
  /** Where each line goes. Default `process.stderr`. */
  write?: (line: string) => void;
  /** Values never to write (the API keys the runtime was configured with), replaced by a marker. */
  secrets?: readonly (string | null | undefined)[];
  /** Clock for the `time` field. Default `Date.now`. */
  now?: () => number;
}

/** A JSON-safe copy: errors become their name and message, cycles and BigInts are cut. */
function replacer(): (key: string, value: unknown) => unknown {
  const seen = new WeakSet<object>();
  return (_key, value) => {
    if (typeof value === 'bigint') return value.toString();
    if (value instanceof Error) return { name: value.name, message: value.message };
    if (typeof value === 'object' && value !== null) {
      if (seen.has(value)) return '[circular]';
      seen.add(value);
    }
    return value;
  };
}

/**
 * The runtime's default logger: one JSON line per entry on stderr, WARN and above, with the
 * level, the time, the message and the entry's fields (`{"level":"warn","time":"…","msg":"…",
 * "event":"block_dropped",…}`). Secrets it was given, and anything shaped like a provider key or
 * bearer token, are replaced before the line is written. The library packages stay silent by
 * default; `createRuntime` uses this one unless given `logger: false` or a logger of its own.
 */
export function createStderrLogger(options: StderrLoggerOptions = {}): Logger {
  const threshold = RANK[options.level ?? 'warn'];
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const secrets = (options.secrets ?? []).filter(
    (s): s is string => typeof s === 'string' && s !== '',
  );
  const now = options.now ?? Date.now;
  const at =
    (level: StderrLogLevel) =>
    (obj: Record<string, unknown>, msg?: string): void => {
      if (RANK[level] < threshold) return;
      let line: string;
      try {
        line = JSON.stringify(
          { level, time: new Date(now()).toISOString(), msg: msg ?? '', ...obj },
          replacer(),
        );
      } catch {
        line = JSON.stringify({ level, time: new Date(now()).toISOString(), msg: msg ?? '' });
      }
      write(`${redactSecrets(line, secrets)}\n`);
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
