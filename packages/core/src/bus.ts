import type { BudgetEvent } from './budget-events.js';
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

/** One way a tool call's input breaks its tool's schema. */
export interface ToolInputViolation {
  /** Where in the input, as a JSON path (`input.path`, `input.items[2]`). */
  path: string;
  /** What is wrong there. */
  message: string;
}

/**
 * Emitted when a model calls a tool with input its schema refuses (canonical-format §5.3). The
 * session answers the call with an error result naming the violations, so the model can correct
 * itself; the tool does not run.
 */
export interface ToolInputInvalidEvent {
  type: 'tool_input_invalid';
  session_id: string | null;
  /** The canonical id of the refused tool use (`tu_<ulid>`). */
  tool_use_id: string;
  /** The tool's canonical name. */
  tool_name: string;
  /** The model that made the call, as a canonical id, when known. */
  model: string | null;
  /** Every violation found, each with its path. */
  violations: ToolInputViolation[];
  timestamp: string;
}

/** What the router refused: a manual swap (`/model`) or the routing of a turn. */
export type RoutingConstraintFailureKind = 'swap' | 'turn';

/**
 * Emitted when the router refuses a swap or a turn because no model it may use can take the
 * history or the turn (canonical-format §9.4). The active model is left unchanged, and the
 * refusal is also thrown as a typed error, whose `code` this event repeats.
 */
export interface RoutingConstraintFailureEvent {
  type: 'routing_constraint_failure';
  session_id: string | null;
  /** A refused `/model` swap, or a refused routed turn (including its fallbacks). */
  kind: RoutingConstraintFailureKind;
  /**
   * The model that was asked for (the swap's target, or the explicit `@model` / `/model`
   * choice that was refused); null when routing had no explicit choice.
   */
  requested_model: string | null;
  /**
   * The thrown error's code: `swap_refused`, `choice_unavailable`, `strict_rule` or
   * `no_route`.
   */
  code: string;
  /** Every reason given, human-readable. */
  reasons: string[];
  /** The thrown error's message. */
  message: string;
  /** The candidates considered, with why each was rejected (empty for a swap). */
  trace: RouteTraceEntry[];
  timestamp: string;
}

/** Every event on the bus. */
export type BusEvent =
  | LlmCallStartedEvent
  | LlmCallCompletedEvent
  | LlmCallFailedEvent
  | RouteDecidedEvent
  | ToolInputInvalidEvent
  | RoutingConstraintFailureEvent
  | BudgetEvent;
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
