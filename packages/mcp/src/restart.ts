/** Back-off of a crashed server's restarts. */
export interface RestartOptions {
  /** Wait before the first restart, in milliseconds (default 500). */
  initial_delay_ms?: number;
  /** Longest wait between restarts, in milliseconds (default 30000). */
  max_delay_ms?: number;
}

/**
 * Restarts with exponential back-off (×2 each failure, capped), until an attempt succeeds or the
 * schedule is cancelled; the timer is unref'd so a crashed server never keeps the process alive.
 */
export class RestartSchedule {
  #delay: number;
  readonly #initial: number;
  readonly #max: number;
  #timer: NodeJS.Timeout | undefined;
  #cancelled = false;
  readonly #attempt: () => Promise<boolean>;

  constructor(options: RestartOptions, attempt: () => Promise<boolean>) {
    this.#initial = options.initial_delay_ms ?? 500;
    this.#max = options.max_delay_ms ?? 30_000;
    this.#delay = this.#initial;
    this.#attempt = attempt;
  }

  /** Plans the next attempt. */
  schedule(): void {
    if (this.#cancelled || this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#attempt().then((ok) => {
        if (ok) this.#delay = this.#initial;
        else {
          this.#delay = Math.min(this.#delay * 2, this.#max);
          this.schedule();
        }
      });
    }, this.#delay);
    this.#timer.unref();
  }

  /** Stops every planned attempt. */
  cancel(): void {
    this.#cancelled = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
