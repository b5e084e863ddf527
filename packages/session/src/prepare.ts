import type { Logger } from '@yourtool/core';
import type { PrepareReport, Router } from '@yourtool/router';
import { errorText } from './errors.js';
import { unlessAborted } from './event-queue.js';

/** How long a turn waits before detecting again the capabilities a prepare could not detect. */
const PREPARE_RETRY_MS = 60_000;

/**
 * Runs `router.prepare()` once per manager, before its first routing decision, so that models
 * whose capabilities are detected at run time (Ollama) can be routed to (docs/decisions/0097).
 * Detection failures are logged; routing then reports those models as "capabilities not
 * detected yet", and a turn a minute later tries again.
 */
export class RouterPreparation {
  readonly #router: Router;
  readonly #logger: Logger;
  /** Whether a prepare ran to its end with every detection done. */
  #prepared = false;
  /** After a prepare that reported failures: when the next turn may try again (epoch ms). */
  #retryAt = 0;
  /** The prepare in progress, shared by the turns that wait for it. */
  #preparing: Promise<void> | null = null;

  constructor(router: Router, logger: Logger) {
    this.#router = router;
    this.#logger = logger;
  }

  /** Waits for the router to be prepared (or for `signal` to abort). */
  async ready(signal: AbortSignal): Promise<void> {
    if (this.#prepared) return;
    if (!this.#preparing && Date.now() < this.#retryAt) return;
    this.#preparing ??= this.#start(signal);
    await unlessAborted(this.#preparing, signal);
  }

  #start(signal: AbortSignal): Promise<void> {
    return this.#router
      .prepare({ signal })
      .then(
        (report) => this.#done(report, signal),
        (error: unknown) => {
          if (signal.aborted) return;
          this.#retryAt = Date.now() + PREPARE_RETRY_MS;
          this.#logger.warn(
            { event: 'router_prepare_failed', error: errorText(error) },
            'router.prepare() failed; routing goes on without it',
          );
        },
      )
      .finally(() => {
        this.#preparing = null;
      });
  }

  #done(report: PrepareReport, signal: AbortSignal): void {
    for (const failed of report.failed) {
      this.#logger.warn(
        { event: 'capability_detection_failed', model: failed.model, error: failed.error.message },
        `could not detect the capabilities of ${failed.model}`,
      );
    }
    if (signal.aborted) return;
    if (report.failed.length === 0) this.#prepared = true;
    else this.#retryAt = Date.now() + PREPARE_RETRY_MS;
  }
}
