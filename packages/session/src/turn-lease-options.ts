import { unknownNameMessage } from '@yourtool/core';
import { InvalidSendOptionError } from './errors.js';
import type { TurnLeaseSettings } from './turn-lease.js';

/**
 * How a manager's turns hold their sessions in a store that keeps turn leases (decision 0156):
 * one turn at a time per session across every process sharing the store.
 */
export interface TurnLeaseOptions {
  /**
   * How long a lease lives after each write or heartbeat, in milliseconds: how long a session
   * stays locked after the process running its turn died. Default 30000.
   */
  ttlMs?: number;
  /**
   * How often a running turn renews its lease, in milliseconds: below `ttlMs` (a third of it
   * leaves room for two failed renewals). Default 10000.
   */
  heartbeatMs?: number;
}

/** How long `send` waits for a session's running turn (`SendOptions.waitForTurn`). */
export interface WaitForTurnOptions {
  /**
   * The longest wait, in milliseconds, before `send` throws `TurnInProgressError` after all.
   * The send's `signal` ends the wait too.
   */
  timeoutMs: number;
}

/** A lease's time to live unless told otherwise (decision 0156). */
export const DEFAULT_TURN_LEASE_TTL_MS = 30_000;
/** How often a turn renews its lease unless told otherwise. */
export const DEFAULT_TURN_LEASE_HEARTBEAT_MS = 10_000;
/** The longest delay a timer takes (2^31 - 1 ms). */
const MAX_TIMER_MS = 2_147_483_647;

const TURN_LEASE_OPTIONS = Object.keys({
  ttlMs: true,
  heartbeatMs: true,
} satisfies { [K in keyof TurnLeaseOptions]-?: true });

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isMs = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 && value <= MAX_TIMER_MS;

/** What is wrong with the manager option `turnLease`, or null. */
export function turnLeaseProblem(value: unknown): string | null {
  if (!isObject(value)) return 'turnLease must be an object ({ ttlMs, heartbeatMs })';
  const unknown = Object.keys(value).filter((k) => !TURN_LEASE_OPTIONS.includes(k));
  if (unknown.length > 0)
    return unknownNameMessage('option', unknown, TURN_LEASE_OPTIONS, 'turnLease.');
  for (const [name, ms] of [
    ['ttlMs', value.ttlMs],
    ['heartbeatMs', value.heartbeatMs],
  ] as const) {
    if (ms !== undefined && !isMs(ms)) {
      return `turnLease.${name} must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS} (got ${String(ms)})`;
    }
  }
  const { ttlMs, heartbeatMs } = resolveTurnLease(value as TurnLeaseOptions);
  if (heartbeatMs >= ttlMs) {
    return `turnLease.heartbeatMs must be below turnLease.ttlMs (got ${heartbeatMs} and ${ttlMs}): a lease must be renewed before it expires`;
  }
  return null;
}

/** The lease settings of a manager, defaults filled in. */
export function resolveTurnLease(options: TurnLeaseOptions | undefined): TurnLeaseSettings {
  return {
    ttlMs: options?.ttlMs ?? DEFAULT_TURN_LEASE_TTL_MS,
    heartbeatMs: options?.heartbeatMs ?? DEFAULT_TURN_LEASE_HEARTBEAT_MS,
  };
}

/**
 * The longest wait for a running turn a send asked for, in ms; null when it asked for none.
 * @throws InvalidSendOptionError for a `waitForTurn` that is not `{ timeoutMs }`.
 */
export function waitForTurnMs(value: unknown): number | null {
  if (value === undefined) return null;
  if (isObject(value) && Object.keys(value).every((k) => k === 'timeoutMs')) {
    const { timeoutMs } = value;
    if (typeof timeoutMs === 'number' && Number.isSafeInteger(timeoutMs) && timeoutMs >= 0) {
      return timeoutMs;
    }
  }
  throw new InvalidSendOptionError(
    'waitForTurn',
    'waitForTurn must be { timeoutMs }, a whole number of milliseconds of 0 or more',
  );
}
