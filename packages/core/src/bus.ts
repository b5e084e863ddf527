import type { ErrorClass } from './errors.js';
import { type Logger, silentLogger } from './logger.js';
import type { StopReason, TokenUsage } from './schemas/adapter.js';
import type { RoutingDecisionRecord, RoutingPolicy } from './schemas/routing.js';

/** Emitted when an attempt of an LLM call starts (one per attempt, retries included). */
export interface LlmCallStartedEvent {
  type: 'llm.call_started';
  request_id: string;
  session_id: string | null;
  model: string;
  provider: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** ISO-8601 timestamp. */
  timestamp: string;
}

/** Emitted once when an LLM call succeeds. */
export interface LlmCallCompletedEvent {
  type: 'llm.call_completed';
  request_id: string;
  session_id: string | null;
  model: string;
  provider: string;
  stop_reason: StopReason;
  usage: TokenUsage;
  latency_ms: number;
  /** Retries before the successful attempt. */
  retry_count: number;
  timestamp: string;
}

/** Emitted when an attempt fails; the last one for a call has `final: true`. */
export interface LlmCallFailedEvent {
  type: 'llm.call_failed';
  request_id: string;
  session_id: string | null;
  model: string;
  provider: string;
  error_class: ErrorClass;
  /** Retries before the failed attempt (0 for the first attempt). */
  retry_count: number;
  /** Whether this failure ended the call (no retry follows). */
  final: boolean;
  provider_status: number | null;
  /** What went wrong, secrets redacted. */
  message: string;
  timestamp: string;
}

/** One candidate the router considered and what became of it. */
export interface RouteTraceEntry {
  policy: RoutingPolicy;
  /** Canonical model id, or null when the step had no candidate to offer. */
  model: string | null;
  accepted: boolean;
  /** Why it was accepted, rejected or skipped. */
  reason: string;
  /**
   * Set when the candidate was rejected for its context window alone: the history does not fit,
   * and everything else about the turn does. A shorter history (a session's compaction) would
   * let it take the turn.
   */
  context_limited?: ContextLimit;
}

/** How far a history overshoots one model's context window (see {@link RouteTraceEntry}). */
export interface ContextLimit {
  /** The model's context window, in tokens. */
  context_window: number;
  /** The model's adapter's estimate of the request's input tokens. */
  estimated_input_tokens: number;
  /** The output tokens the turn asks for, which the window must also hold. */
  max_output_tokens: number;
}

/** Emitted for every routing decision, with the whole chain. */
export interface RouteDecidedEvent {
  type: 'route.decided';
  session_id: string | null;
  decision: RoutingDecisionRecord;
  /** The chain step that produced the decision. */
  policy: RoutingPolicy;
  trace: RouteTraceEntry[];
  timestamp: string;
}

/** Every event on the bus. */
export type BusEvent =
  | LlmCallStartedEvent
  | LlmCallCompletedEvent
  | LlmCallFailedEvent
  | RouteDecidedEvent;
/** The `type` of a bus event. */
export type BusEventType = BusEvent['type'];
/** The bus event with a given `type`. */
export type BusEventOf<T extends BusEventType> = Extract<BusEvent, { type: T }>;

/** A typed publish/subscribe channel for {@link BusEvent}s. */
export interface EventBus {
  /** Delivers an event to every handler subscribed to its type and to `'*'`. */
  emit(event: BusEvent): void;
  /** Subscribes to one event type; returns the unsubscribe function. */
  on<T extends BusEventType>(type: T, handler: (event: BusEventOf<T>) => void): () => void;
  /** Subscribes to every event; returns the unsubscribe function. */
  onAny(handler: (event: BusEvent) => void): () => void;
}

/**
 * An in-process, synchronous {@link EventBus}. A handler that throws does not stop delivery to
 * the others; the error is logged at ERROR level (a diagnostic, not a bus event).
 */
export function createEventBus(options: { logger?: Logger } = {}): EventBus {
  const logger = options.logger ?? silentLogger;
  const handlers = new Map<string, Set<(event: BusEvent) => void>>();
  const subscribe = (type: string, handler: (event: BusEvent) => void) => {
    let set = handlers.get(type);
    if (!set) {
      set = new Set();
      handlers.set(type, set);
    }
    set.add(handler);
    return () => {
      set.delete(handler);
    };
  };
  return {
    emit(event) {
      for (const key of [event.type, '*']) {
        for (const handler of handlers.get(key) ?? []) {
          try {
            handler(event);
          } catch (error) {
            (logger.error ?? logger.warn).call(
              logger,
              { event: 'bus.handler_error', bus_event: event.type, error: String(error) },
              'an event bus handler threw',
            );
          }
        }
      }
    },
    on(type, handler) {
      return subscribe(type, handler as (event: BusEvent) => void);
    },
    onAny(handler) {
      return subscribe('*', handler);
    },
  };
}
