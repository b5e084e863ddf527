import {
  type AdapterError,
  type AttemptEvent,
  type BusEvent,
  type ErrorClass,
  type MessageCompleteEvent,
  newRequestId,
  nowTimestamp,
  parseModelId,
} from '@yourtool/core';
import type { RouteDecision } from '@yourtool/router';
import type { TurnScope } from './turn-scope.js';

/** How a failure is reported on the bus. */
interface Failure {
  error_class: ErrorClass;
  retry_count: number;
  final: boolean;
  provider_status: number | null;
  message: string;
}

/**
 * What one model call tells the world besides its stream: `llm.call_started`,
 * `llm.call_completed` and `llm.call_failed` on the bus (availability learns from them), and a
 * `session.attempt` event per attempt of the adapter's bounded retry, for a UI.
 */
export class CallReport {
  readonly request_id = newRequestId();
  readonly provider: string;
  readonly #state: TurnScope;
  readonly #decision: RouteDecision;
  readonly #step: number;
  /** Whether the adapter reported the attempt that gave up (the bus then has its failure). */
  #finalFailureEmitted = false;
  /** Retries made before the latest attempt the adapter started (0 until one retries). */
  #retries = 0;

  constructor(state: TurnScope, decision: RouteDecision) {
    this.#state = state;
    this.#decision = decision;
    this.#step = state.steps;
    this.provider = parseModelId(decision.model).provider;
  }

  /** The adapter's `onAttempt`: one `session.attempt` event, and the bus event it warrants. */
  readonly onAttempt = (attempt: AttemptEvent): void => {
    const failed = attempt.type === 'attempt.failed' ? attempt : null;
    const phases = { 'attempt.start': 'start', 'attempt.failed': 'failed' } as const;
    this.#state.queue.push({
      type: 'session.attempt',
      step: this.#step,
      model: this.#decision.model,
      request_id: this.request_id,
      phase: attempt.type === 'attempt.succeeded' ? 'succeeded' : phases[attempt.type],
      attempt: attempt.attempt,
      retry_count: attempt.retry_count,
      error_class: failed?.error.error_class ?? null,
      message: failed?.error.message ?? null,
      will_retry: failed?.will_retry ?? false,
      delay_ms: failed?.delay_ms ?? null,
    });
    if (attempt.type === 'attempt.start') {
      this.#retries = attempt.retry_count;
      this.#emit({
        type: 'llm.call_started',
        ...this.#ids(),
        attempt: attempt.attempt,
        timestamp: nowTimestamp(),
      });
    } else if (failed) {
      this.#finalFailureEmitted ||= !failed.will_retry;
      this.#failed({
        error_class: failed.error.error_class,
        retry_count: failed.retry_count,
        final: !failed.will_retry,
        provider_status: failed.error.provider_status,
        message: failed.error.message,
      });
    }
  };

  /**
   * Reports how the call ended: completed (a finished reply), cancelled (the turn's signal), or
   * failed with `error` unless the adapter already reported its final failed attempt.
   */
  finished(complete: MessageCompleteEvent | undefined, error: AdapterError | null): void {
    const ok = complete && !error && !['error', 'cancelled'].includes(complete.stop_reason);
    if (ok) {
      this.#emit({
        type: 'llm.call_completed',
        ...this.#ids(),
        stop_reason: complete.stop_reason,
        usage: complete.usage,
        latency_ms: complete.latency_ms,
        retry_count: this.#retries,
        timestamp: nowTimestamp(),
      });
    } else if (this.#state.signal.aborted) {
      const message = 'cancelled';
      this.#failed({
        error_class: 'cancelled',
        retry_count: this.#retries,
        final: true,
        provider_status: null,
        message,
      });
    } else if (error && !this.#finalFailureEmitted) {
      this.#failed({
        error_class: error.error_class,
        retry_count: Math.max(0, error.attempts - 1),
        final: true,
        provider_status: error.provider_status,
        message: error.message,
      });
    }
  }

  #ids() {
    return {
      request_id: this.request_id,
      session_id: this.#state.inputs.session.id,
      model: this.#decision.model,
      provider: this.provider,
    };
  }

  #failed(failure: Failure): void {
    this.#emit({ type: 'llm.call_failed', ...this.#ids(), ...failure, timestamp: nowTimestamp() });
  }

  #emit(event: BusEvent): void {
    this.#state.manager.settings.bus?.emit(event);
  }
}
