import type { Logger } from '@yourtool/core';

/** The event the router and the session log when a model's capabilities could not be detected. */
const DETECTION_FAILED = 'capability_detection_failed';

/** Longest value shown in a warning's fields; longer ones are cut with `…`. */
const MAX_VALUE = 120;

/** A field value as a warning shows it, or `undefined` for values that are not for people. */
function shown(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  if (value instanceof Error) return value.message;
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
    return value.join(', ');
  }
  return undefined;
}

/**
 * One log entry as one line: `warning: <message> (<field>: <value>, ...)`. The fields shown are
 * those with a plain value (text, numbers, lists of text) that the message does not already
 * say; `event`, and nested objects (traces, whole records) are left out.
 */
export function logLine(level: 'warning' | 'error', obj: Record<string, unknown>, msg?: string) {
  const message = (msg ?? '').trim() || String(obj.event ?? 'something happened');
  const fields = Object.entries(obj).flatMap(([key, value]) => {
    if (key === 'event') return [];
    const text = shown(value);
    if (text === undefined || text === '' || message.includes(text)) return [];
    const flat = text.replace(/\s+/g, ' ');
    return [`${key}: ${flat.length > MAX_VALUE ? `${flat.slice(0, MAX_VALUE - 1)}…` : flat}`];
  });
  const flatMessage = message.replace(/\s*\n\s*/g, ' ');
  return `${level}: ${flatMessage}${fields.length > 0 ? ` (${fields.join(', ')})` : ''}`;
}

/** Models whose capabilities could not be detected, kept by the CLI's logger. */
export class DetectionFailures {
  readonly #failures = new Map<string, string>();

  /** Records what a detection failure entry says (either of its two shapes). */
  record(obj: Record<string, unknown>): void {
    const entries = Array.isArray(obj.models) ? obj.models : [obj];
    for (const entry of entries as Array<Record<string, unknown>>) {
      if (typeof entry?.model === 'string') {
        this.#failures.set(entry.model, shown(entry.error) ?? 'unknown error');
      }
    }
  }

  /** Why the capabilities of `model` could not be detected, if they could not. */
  get(model: string): string | undefined {
    return this.#failures.get(model);
  }
}

/**
 * The CLI's logger: warnings and errors of the libraries as one readable line each on stderr
 * (see {@link logLine}), with `redact` applied. Failed capability detections (Ollama's
 * `/api/show` at the first turn, for every model of models.yaml) are not printed: they go to
 * `detection`, and are shown where they matter, for a model a command or routing asked for.
 */
export function cliLogger(
  write: (line: string) => void,
  redact: (text: string) => string,
  detection: DetectionFailures,
): Logger {
  const at =
    (level: 'warning' | 'error') =>
    (obj: Record<string, unknown>, msg?: string): void => {
      if (obj.event === DETECTION_FAILED) {
        detection.record(obj);
        return;
      }
      write(`${redact(logLine(level, obj, msg))}\n`);
    };
  return { warn: at('warning'), error: at('error'), info: () => {}, debug: () => {} };
}
