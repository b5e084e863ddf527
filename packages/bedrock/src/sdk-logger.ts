import type { Logger } from '@yourtool/core';
import { redactError, redactSecrets } from '@yourtool/core/adapter';
import { BEDROCK } from './provider.js';

/** The AWS SDK's `logger` client option (its `Logger` interface). */
export interface BedrockSdkLogger {
  trace(...content: unknown[]): void;
  debug(...content: unknown[]): void;
  info(...content: unknown[]): void;
  warn(...content: unknown[]): void;
  error(...content: unknown[]): void;
}

type SdkLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

/**
 * The SDK's logger: each line goes to the adapter's `logger` as an `sdk_log` record, secrets
 * redacted, never to the console (the SDK's default logger is silent, but a client given
 * `console` would print request bodies and credentials).
 */
export function bedrockSdkLogger(
  logger: Logger,
  secrets: () => ReadonlyArray<string | null | undefined>,
): BedrockSdkLogger {
  const write =
    (level: SdkLevel) =>
    (...content: unknown[]): void => {
      const list = secrets();
      const [first, ...details] = content;
      const text = redactSecrets(typeof first === 'string' ? first : 'aws sdk', list);
      const entry: Record<string, unknown> = {
        event: 'sdk_log',
        adapter: BEDROCK,
        sdk_level: level,
        ...(typeof first === 'string' ? {} : { details: [redactError(first, list)] }),
        ...(details.length > 0 ? { details: details.map((d) => redactError(d, list)) } : {}),
      };
      // diagnostics go only where the logger has the level; warnings and errors always land
      const target =
        level === 'warn'
          ? logger.warn
          : level === 'error'
            ? (logger.error ?? logger.warn)
            : logger[level === 'trace' ? 'debug' : level];
      if (!target) return;
      target.call(logger, entry, text);
    };
  return {
    trace: write('trace'),
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
  };
}
