import { YourtoolError } from './errors.js';
import {
  type TurnLease,
  TurnLeaseHeldError,
  TurnLeaseLostError,
  type TurnLeaseState,
  type TurnLeaseWrite,
} from './session-store.js';

/** A lease as the in-memory store keeps it. */
interface HeldLease {
  id: string;
  /** `Date.now()` milliseconds. */
  expiresAt: number;
}

/** What a checked lease write does once the store's own write succeeded. */
export interface LeaseChange {
  /** Applies the change; call it only once the write it goes with is done. */
  commit(): void;
  /** Whether this is a `take` over another turn's expired lease (its rows need finishing). */
  readonly tookOver: boolean;
}

/**
 * The turn leases of `MemorySessionStore` (decision 0156): one turn at a time per session in
 * this process, on the process's clock. The store checks a write's lease before it changes
 * anything, and commits it after.
 */
export class MemoryTurnLeases {
  readonly #leases = new Map<string, HeldLease>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** The lease on a session as a read sees it, or null. */
  state(sessionId: string): TurnLeaseState | null {
    const held = this.#leases.get(sessionId);
    return held ? { id: held.id, expires_in_ms: held.expiresAt - this.#now() } : null;
  }

  /**
   * Checks that `write` may apply to the session's lease; changes nothing yet.
   * @throws TurnLeaseHeldError, TurnLeaseLostError.
   */
  check(sessionId: string, write: TurnLeaseWrite): LeaseChange {
    const now = this.#now();
    const held = this.#leases.get(sessionId);
    if ('take' in write) {
      const lease = checkedLease(write.take);
      if (held && held.id !== lease.id && held.expiresAt > now) {
        throw new TurnLeaseHeldError(sessionId, held.expiresAt - now);
      }
      return {
        tookOver: held !== undefined && held.id !== lease.id,
        commit: () => this.#leases.set(sessionId, { id: lease.id, expiresAt: now + lease.ttlMs }),
      };
    }
    const lease = checkedLease('hold' in write ? write.hold : write.release);
    if (held?.id !== lease.id) throw new TurnLeaseLostError(sessionId, lease.id);
    return {
      tookOver: false,
      commit: () => {
        if ('hold' in write) held.expiresAt = now + lease.ttlMs;
        else this.#leases.delete(sessionId);
      },
    };
  }

  /** Renews a held lease. @throws TurnLeaseLostError. */
  renew(sessionId: string, lease: TurnLease): void {
    this.check(sessionId, { hold: lease }).commit();
  }

  /** Releases a lease; false when it was not held by `lease.id`. */
  release(sessionId: string, lease: TurnLease): boolean {
    if (this.#leases.get(sessionId)?.id !== lease.id) return false;
    this.#leases.delete(sessionId);
    return true;
  }

  /** Forgets a session's lease (the session was deleted). */
  forget(sessionId: string): void {
    this.#leases.delete(sessionId);
  }
}

/** @throws YourtoolError (`invalid_store_input`) for a lease without an id or a whole TTL. */
function checkedLease(lease: TurnLease): TurnLease {
  if (typeof lease?.id !== 'string' || lease.id === '') {
    throw new YourtoolError('invalid_store_input', 'a turn lease needs a non-empty id');
  }
  if (!Number.isSafeInteger(lease.ttlMs) || lease.ttlMs < 1) {
    throw new YourtoolError(
      'invalid_store_input',
      `a turn lease's ttlMs must be a whole number of 1 or more, got ${String(lease.ttlMs)}`,
    );
  }
  return lease;
}
