import { randomUUID } from 'node:crypto';
import {
  isYourtoolError,
  type Logger,
  type Message,
  type SessionStore,
  supportsTurnLeases,
  type TurnLease,
  TurnLeaseLostError,
  type TurnLeaseStore,
  type TurnLeaseWrite,
} from '@yourtool/core';
import { errorText } from './errors.js';

/** How a manager's turns hold their sessions (decision 0156). */
export interface TurnLeaseSettings {
  /** How long a lease lives after each write or heartbeat, in ms. */
  ttlMs: number;
  /** How often the heartbeat renews it while the turn runs, in ms. */
  heartbeatMs: number;
}

/** What a turn's lease holder is made with besides its store. */
export interface TurnLeaseHolderOptions {
  sessionId: string;
  settings: TurnLeaseSettings;
  logger: Logger;
  /** Called when a heartbeat finds the lease taken by another turn. */
  onLost: (error: unknown) => void;
}

/** Whether `error` says another turn holds the session (`TurnLeaseHeldError`, any copy of core). */
export function isLeaseHeld(error: unknown): error is { code: string; expiresInMs: number } {
  return isYourtoolError(error) && error.code === 'turn_lease_held';
}

/**
 * One turn's lease on its session, in a store that keeps leases (decision 0156). The turn's
 * first write takes it (the user message's, in the same transaction), every later write holds
 * it (refused once another turn took the session: the turn never writes without it), and the
 * write that finishes the turn releases it: an assistant reply that is complete and asks for
 * no tool. In between, a heartbeat renews it every `heartbeatMs`, so a turn waiting on a
 * person keeps its session. A turn that ends any other way releases it with a write of its
 * own ({@link end}). A heartbeat that finds the lease lost calls `onLost`, which cancels the
 * turn.
 */
export class TurnLeaseHolder {
  readonly lease: TurnLease;
  readonly #store: SessionStore & TurnLeaseStore;
  readonly #sessionId: string;
  readonly #heartbeatMs: number;
  readonly #logger: Logger;
  readonly #onLost: (error: unknown) => void;
  #state: 'free' | 'held' | 'released' | 'lost' = 'free';
  #timer: ReturnType<typeof setInterval> | null = null;
  /** The finishing write handed out and not yet settled: a renewal failing meanwhile is moot. */
  #releasing: TurnLeaseWrite | null = null;

  /** A holder for the turn, or null when the store keeps no leases (one process only). */
  static for(store: SessionStore, options: TurnLeaseHolderOptions): TurnLeaseHolder | null {
    if (!supportsTurnLeases(store)) return null;
    return new TurnLeaseHolder(store, options);
  }

  private constructor(store: SessionStore & TurnLeaseStore, options: TurnLeaseHolderOptions) {
    this.#store = store;
    this.#sessionId = options.sessionId;
    this.lease = { id: `turn_${randomUUID()}`, ttlMs: options.settings.ttlMs };
    this.#heartbeatMs = options.settings.heartbeatMs;
    this.#logger = options.logger;
    this.#onLost = options.onLost;
  }

  /** What the next write does to the lease: take it first, then hold it, release it last. */
  writeFor(message: Message): TurnLeaseWrite {
    if (this.#state === 'free') return { take: this.lease };
    if (this.#state === 'released') return { take: this.lease };
    if (!finishes(message)) return { hold: this.lease };
    const release = { release: this.lease };
    this.#releasing = release;
    return release;
  }

  /** A write with `write` committed. */
  wrote(write: TurnLeaseWrite): void {
    if (write === this.#releasing) this.#releasing = null;
    if ('release' in write) {
      this.#state = 'released';
      this.#stopHeartbeat();
    } else if ('take' in write && this.#state !== 'held') {
      this.#state = 'held';
      this.#startHeartbeat();
    }
  }

  /**
   * A write with `write` failed with `error`; resolves to the error the turn throws: a take
   * after this turn released the session (a write after its finishing one) that meets
   * another turn is a lost lease, not a turn that never started.
   */
  failed(write: TurnLeaseWrite, error: unknown): unknown {
    if (write === this.#releasing) this.#releasing = null;
    if (isYourtoolError(error) && error.code === 'turn_lease_lost') {
      this.#state = 'lost';
      this.#stopHeartbeat();
    }
    if ('take' in write && this.#state === 'released' && isLeaseHeld(error)) {
      this.#state = 'lost';
      return new TurnLeaseLostError(this.#sessionId, this.lease.id);
    }
    return error;
  }

  /** At the turn's end: releases the lease when it is still held (a turn that ended early). */
  async end(): Promise<void> {
    this.#stopHeartbeat();
    if (this.#state !== 'held') return;
    this.#state = 'released';
    try {
      await this.#store.releaseTurnLease(this.#sessionId, this.lease);
    } catch (error) {
      // the lease expires by itself: the session is free after its TTL at the latest
      this.#logger.warn(
        {
          event: 'turn_lease_release_failed',
          session_id: this.#sessionId,
          error: errorText(error),
        },
        'could not release the turn lease; it expires by itself',
      );
    }
  }

  #startHeartbeat(): void {
    this.#timer = setInterval(() => void this.#renew(), this.#heartbeatMs);
    // a heartbeat never keeps the process alive by itself
    this.#timer.unref?.();
  }

  #stopHeartbeat(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  async #renew(): Promise<void> {
    if (this.#state !== 'held') return;
    try {
      await this.#store.renewTurnLease(this.#sessionId, this.lease);
    } catch (error) {
      // a finishing write in flight may have released the lease before this renewal ran
      if (this.#state !== 'held' || this.#releasing !== null) return;
      if (isYourtoolError(error) && error.code === 'turn_lease_lost') {
        this.#state = 'lost';
        this.#stopHeartbeat();
        this.#onLost(error);
        return;
      }
      // a failed renewal is tried again at the next beat; the TTL covers a few of them
      this.#logger.warn(
        {
          event: 'turn_lease_renewal_failed',
          session_id: this.#sessionId,
          error: errorText(error),
        },
        'could not renew the turn lease; trying again at the next heartbeat',
      );
    }
  }
}

/** Whether a write of `message` finishes its turn: a complete reply that runs no tool. */
function finishes(message: Message): boolean {
  return (
    message.role === 'assistant' &&
    message.metadata.status === 'complete' &&
    !message.content.some((block) => block.type === 'tool_use')
  );
}
