import { CURRENT_SCHEMA_VERSION, type Message, newMessageId, nowTimestamp } from '@yourtool/core';
import type { RouteDecision } from '@yourtool/router';
import type { TurnLog } from './turn-log.js';

/**
 * The assistant message of a reply at its call's first event (`partial`, no content; its id
 * and `created_at` date from then). Built from checked parts, not parsed: the finished reply is
 * checked once (checkReply), and the store checks this row in full should it be written.
 */
export function partialReply(
  sessionId: string,
  decision: RouteDecision,
  provider: string,
): Message {
  return {
    id: newMessageId(),
    session_id: sessionId,
    role: 'assistant',
    content: [],
    metadata: { status: 'partial', model: decision.model, provider, routing: decision.record },
    created_at: nowTimestamp(),
    schema_version: CURRENT_SCHEMA_VERSION,
  };
}

/**
 * The `partial` row of a reply in progress (decision 0148): stored through the turn's log once
 * the stream has run for `delayMs` past its first event (at the first event itself when 0), so
 * a crash in a long stream still leaves a trace of the call. A reply that ends sooner is
 * stored once, finished: one write instead of two.
 */
export class PartialRow {
  /** The assistant message as built at the first event (`partial`, no content). */
  readonly message: Message;
  readonly #log: TurnLog;
  readonly #delayMs: number;
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** The write of the `partial` row, once started. */
  #write: Promise<void> | null = null;
  #stored = false;
  #failure: { error: unknown } | null = null;

  constructor(log: TurnLog, row: { message: Message; delayMs: number }) {
    this.#log = log;
    this.message = row.message;
    this.#delayMs = row.delayMs;
  }

  /**
   * At the first event: with no delay, stores the row now (a failing write throws here, as the
   * stream's own failure would); otherwise arms the timer that stores it later.
   */
  async start(): Promise<void> {
    if (this.#delayMs === 0) {
      await this.#store();
      return;
    }
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#write = this.#store().catch((error: unknown) => {
        this.#failure = { error };
      });
    }, this.#delayMs);
    // a pending trace never keeps the process alive
    this.#timer.unref?.();
  }

  /**
   * At the stream's end: no `partial` row is written after this. Resolves to whether the row
   * is stored (the finished reply then replaces it; otherwise the finished reply is appended).
   * @throws the failure of the `partial` row's write, when it failed.
   */
  async settle(): Promise<boolean> {
    this.stop();
    if (this.#write) await this.#write;
    if (this.#failure) throw this.#failure.error;
    return this.#stored;
  }

  /** Disarms the timer (a call left before it settled writes no `partial` row after). */
  stop(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  async #store(): Promise<void> {
    await this.#log.writePartial(this.message);
    this.#stored = true;
  }
}
