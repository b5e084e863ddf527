import type { SessionEvent } from './events.js';

/**
 * Events produced while the turn awaits something (a provider stream, a confirmation, a tool
 * run), buffered until the turn's generator yields them, in order.
 */
export class EventQueue {
  #items: SessionEvent[] = [];
  #wake: (() => void) | null = null;
  #waiting: Promise<void> | null = null;

  /** Buffers an event and wakes the turn if it waits for one. */
  push(event: SessionEvent): void {
    this.#items.push(event);
    const wake = this.#wake;
    this.#wake = null;
    this.#waiting = null;
    wake?.();
  }

  /** How many events are buffered. */
  get size(): number {
    return this.#items.length;
  }

  /** Takes every buffered event. */
  drain(): SessionEvent[] {
    return this.#items.splice(0);
  }

  /**
   * Resolves with `work`'s outcome, or with null as soon as an event is buffered (at once if one
   * is): one promise a wait, where racing {@link ready} against `work` takes four.
   */
  settledOrWoken<T>(work: Promise<T>): Promise<Settled<T> | null> {
    if (this.#items.length > 0) return Promise.resolve(null);
    return new Promise<Settled<T> | null>((resolve) => {
      // a `ready()` promise still pending lost its race to an earlier settle: nobody awaits it
      this.#waiting = null;
      this.#wake = () => resolve(null);
      work.then(
        (value) => resolve({ ok: true, value }),
        (error: unknown) => resolve({ ok: false, error }),
      );
    });
  }

  /** Resolves once an event is buffered (at once if one is). */
  ready(): Promise<void> {
    if (this.#items.length > 0) return Promise.resolve();
    this.#waiting ??= new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
    return this.#waiting;
  }
}

/** How a piece of work the turn awaits ended. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/**
 * Awaits `work`, yielding the events `queue` receives meanwhile as they arrive (and those left
 * when it settles); returns what `work` resolves to, or throws what it rejects with.
 */
export async function* pump<T>(
  work: Promise<T>,
  queue: EventQueue,
): AsyncGenerator<SessionEvent, T, undefined> {
  const settled = work.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  for (;;) {
    const next = await Promise.race([settled, queue.ready().then(() => null)]);
    for (const event of queue.drain()) yield event;
    if (next === null) continue;
    if (!next.ok) throw next.error;
    return next.value;
  }
}

/** What a wait raced against the turn's signal resolves to when the signal wins. */
export const ABORTED: unique symbol = Symbol('aborted');

/**
 * Waits for `work` unless `signal` aborts first (then resolves to {@link ABORTED} at once and
 * ignores whatever `work` does later). A rejection of `work` before the abort rejects.
 */
export function unlessAborted<T>(
  work: Promise<T>,
  signal: AbortSignal,
): Promise<T | typeof ABORTED> {
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.resolve(ABORTED);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
