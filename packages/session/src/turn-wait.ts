import { CancelledError } from '@yourtool/core';
import { TurnInProgressError } from './errors.js';

/** The first pause between two tries for a session whose turn runs, in ms. */
const FIRST_PAUSE_MS = 10;
/** The longest pause between two tries, in ms. */
const LONGEST_PAUSE_MS = 250;

/**
 * A send waiting for its session's running turn (`SendOptions.waitForTurn`, decision 0156):
 * it tries again after pauses that grow from 10 to 250 ms (with jitter, so waiters spread),
 * until the turn it waits for is over, the deadline passes or its signal aborts.
 */
export class TurnWait {
  readonly #sessionId: string;
  readonly #deadline: number;
  readonly #signal: AbortSignal | undefined;
  #pause = FIRST_PAUSE_MS;

  constructor(sessionId: string, timeoutMs: number, signal: AbortSignal | undefined) {
    this.#sessionId = sessionId;
    this.#deadline = Date.now() + timeoutMs;
    this.#signal = signal;
  }

  /**
   * Pauses before the next try.
   * @throws TurnInProgressError once the deadline has passed; CancelledError when the signal
   * aborts (at once, mid-pause too).
   */
  async pause(): Promise<void> {
    this.#checkSignal();
    const left = this.#deadline - Date.now();
    if (left <= 0) throw new TurnInProgressError(this.#sessionId);
    const ms = Math.min(left, this.#pause * (0.5 + Math.random()));
    this.#pause = Math.min(LONGEST_PAUSE_MS, this.#pause * 2);
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#signal?.addEventListener('abort', done, { once: true });
    });
    this.#checkSignal();
  }

  #checkSignal(): void {
    if (this.#signal?.aborted) {
      throw new CancelledError(
        `the send was cancelled while it waited for the running turn of session ${this.#sessionId}`,
      );
    }
  }
}
