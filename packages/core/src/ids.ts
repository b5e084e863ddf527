import { decodeTime, isValid, monotonicFactory } from 'ulid';
import { YourtoolError } from './errors.js';

/** Generates ULIDs. */
export type UlidGenerator = (seedTime?: number) => string;

/**
 * A monotonic ULID generator: ids created in the same millisecond still sort in creation order
 * (the random part is incremented). Each generator is independent; the module-level helpers
 * below share one, so ids from one process are monotonic across all its sessions.
 */
export function createUlidGenerator(): UlidGenerator {
  return monotonicFactory(pooledRandom);
}

/** Random bytes drawn from the platform's CSPRNG in blocks, for the ULIDs' random parts. */
const pool = new Uint8Array(1024);
let poolAt = pool.length;

/**
 * A fraction in [0, 1) from the platform's cryptographic generator, a byte at a time from a
 * pooled block: the `ulid` package's default asks `crypto.getRandomValues` for one byte per
 * character, which cost about 140 µs per id (16 calls) whenever the millisecond changed.
 * 256 is a multiple of the 32 characters of the alphabet, so every character stays equally
 * likely.
 */
function pooledRandom(): number {
  if (poolAt >= pool.length) {
    globalThis.crypto.getRandomValues(pool);
    poolAt = 0;
  }
  return (pool[poolAt++] as number) / 256;
}

const sharedUlid = createUlidGenerator();

/** A new message id: a monotonic ULID (canonical-format §6.1). */
export function newMessageId(): string {
  return sharedUlid();
}

/** A new canonical tool use id: `tu_<ulid>` (canonical-format §6.2). */
export function newToolUseId(): string {
  return `tu_${sharedUlid()}`;
}

/** A new request id: `req_<ulid>`, passed to `cancel(request_id)`. */
export function newRequestId(): string {
  return `req_${sharedUlid()}`;
}

/** A new session id: `sess_<ulid>`. */
export function newSessionId(): string {
  return `sess_${sharedUlid()}`;
}

/** Whether `value` is a well-formed ULID (26 Crockford base32 characters). */
export function isUlid(value: string): boolean {
  return isValid(value);
}

/** The millisecond timestamp encoded in a ULID. */
export function ulidTime(value: string): number {
  return decodeTime(value);
}

/** Whether `value` is a canonical tool use id (`tu_` followed by a ULID). */
export function isCanonicalToolUseId(value: string): boolean {
  return value.startsWith('tu_') && isValid(value.slice(3));
}

let lastMicros = 0;

/** Microseconds since the Unix epoch, never repeating or going backwards within this process. */
export function nowEpochMicros(): number {
  const micros = Math.floor((performance.timeOrigin + performance.now()) * 1000);
  lastMicros = micros > lastMicros ? micros : lastMicros + 1;
  return lastMicros;
}

/**
 * The last whole second formatted, `YYYY-MM-DDTHH:MM:SS.` (a one-entry memo owned by
 * {@link epochMicrosToTimestamp}): timestamps made close together share it, and formatting a
 * date was most of the cost.
 */
const lastSecond = { second: Number.NaN, prefix: '' };

/** Formats epoch microseconds as an ISO-8601 UTC timestamp with six fractional digits. */
export function epochMicrosToTimestamp(micros: number): string {
  if (!Number.isSafeInteger(micros)) {
    throw new YourtoolError('invalid_timestamp', `not an integer microsecond count: ${micros}`);
  }
  const second = Math.floor(micros / 1_000_000);
  const fraction = String(micros - second * 1_000_000).padStart(6, '0');
  if (second !== lastSecond.second) {
    const iso = new Date(second * 1000).toISOString(); // YYYY-MM-DDTHH:MM:SS.000Z
    // years outside 0000–9999 are written with a sign and six digits; their prefix is longer
    lastSecond.prefix = iso.slice(0, iso.length - 4);
    lastSecond.second = second;
  }
  return `${lastSecond.prefix}${fraction}Z`;
}

const TIMESTAMP_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * Parses an ISO-8601 timestamp into epoch microseconds, keeping sub-millisecond digits
 * (digits beyond the sixth are truncated). Throws a `YourtoolError` naming the bad value.
 */
export function timestampToEpochMicros(timestamp: string): number {
  const match = TIMESTAMP_PATTERN.exec(timestamp);
  if (!match) {
    throw new YourtoolError('invalid_timestamp', `not an ISO-8601 timestamp: "${timestamp}"`);
  }
  const [, y, mo, d, h, mi, s, frac = '', zone, sign, oh, om] = match;
  const wholeSecondsMs = Date.UTC(
    Number(y),
    Number(mo) - 1,
    Number(d),
    Number(h),
    Number(mi),
    Number(s),
  );
  if (Number.isNaN(wholeSecondsMs)) {
    throw new YourtoolError('invalid_timestamp', `not a valid date: "${timestamp}"`);
  }
  let micros = wholeSecondsMs * 1000 + Number(frac.padEnd(6, '0').slice(0, 6));
  if (zone !== 'Z') {
    const offsetMinutes = Number(oh) * 60 + Number(om);
    micros -= (sign === '-' ? -1 : 1) * offsetMinutes * 60_000_000;
  }
  return micros;
}

/** The current time as a canonical timestamp (UTC, microsecond precision, monotonic). */
export function nowTimestamp(): string {
  return epochMicrosToTimestamp(nowEpochMicros());
}
