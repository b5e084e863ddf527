import type { EventQueue } from './event-queue.js';
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
