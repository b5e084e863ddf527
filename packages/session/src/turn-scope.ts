import type { Message } from '@yourtool/core';
import type { RouteDecision } from '@yourtool/router';
import type { EventQueue } from './event-queue.js';
import type { TurnTelemetry } from './telemetry.js';
import type { TurnLog } from './turn-log.js';
import type { ManagerContext, TurnInputs } from './turn-state.js';

/**
 * What a part of a turn that reports on it, without driving its loop, reads of it: the
 * manager, what the turn was asked, its signal, the queue its events wait in, and the step it is
 * at.
 */
export interface TurnScope {
  readonly manager: ManagerContext;
  readonly inputs: TurnInputs;
  readonly signal: AbortSignal;
  /** Events produced while the turn awaits something, yielded in order. */
  readonly queue: EventQueue;
  /** Model calls made so far (fallback calls within a step not counted). */
  readonly steps: number;
}

/**
 * What one model call reads of its turn: its scope, the history it sends, the log that stores
 * its reply, and the telemetry that spans it.
 */
export interface CallingTurn extends TurnScope {
  readonly history: Message[];
  readonly log: TurnLog;
  readonly telemetry: TurnTelemetry | null;
}

/** One model call of a turn: the turn it belongs to and the model routing chose for it. */
export interface ModelCall {
  readonly turn: CallingTurn;
  readonly decision: RouteDecision;
}
