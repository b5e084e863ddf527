import type {
  AdapterError,
  ErrorClass,
  Message,
  OutputValidationError,
  RouteTraceEntry,
  RoutingDecisionRecord,
  SideEffects,
  StopReason,
  StreamEvent,
} from '@yourtool/core';
import type { CompactionRecord } from './compaction.js';

/** Everything a turn reports, in order. Stream events of each model call pass through as is. */
export type SessionEvent =
  | StreamEvent
  | {
      /** The user message is stored (once routing found a model for the turn). */
      type: 'session.user_message';
      message: Message;
    }
  | {
      /**
       * The history was too long for every model that could otherwise take the turn (or a
       * provider refused it as too long, with no fallback configured), and the manager's
       * compaction hook replaced older turns with the stored summary `message`.
       * The step is routed again; a `session.routed` follows.
       */
      type: 'session.compacted';
      /** The stored summary (a `system` message with `metadata.compaction`). */
      message: Message;
      compaction: CompactionRecord;
      /** Cost of the calls the hook made (a summary), `null` when it made none or one was unpriced. */
      cost_usd: string | null;
    }
  | {
      /** The router chose a model for the next call. */
      type: 'session.routed';
      step: number;
      model: string;
      decision: RoutingDecisionRecord;
      trace: RouteTraceEntry[];
    }
  | {
      /** An assistant message is stored (complete, cancelled or error), with its usage and cost. */
      type: 'session.assistant_message';
      step: number;
      message: Message;
    }
  | {
      /**
       * The step's model failed after its own retries (rate limit, server error, network) or
       * overflowed its context, and the turn goes on with a fallback from routing.yaml's
       * `fallbacks:`. A `session.routed` for `to` follows. Whatever the UI
       * showed of the failed reply (`text.delta`s since the last `session.routed`) should be
       * discarded: that row is stored with status `error` and is not part of the conversation
       * any more.
       */
      type: 'session.fallback';
      step: number;
      /** Canonical id of the model that failed. */
      from: string;
      /** Canonical id of the model the turn goes on with. */
      to: string;
      /** How `from` failed. */
      error_class: ErrorClass;
      /** The failure's (redacted) message. */
      reason: string;
      /** Id of the failed attempt's stored assistant row (status `error`), or null if none was stored (it failed before its first event). */
      discarded_message_id: string | null;
    }
  | {
      /**
       * One attempt of the step's model call started, failed or succeeded (the adapter's
       * bounded retry). A failed attempt with `will_retry` lets a UI show "retrying in
       * `delay_ms`"; the last failed attempt has `will_retry: false` (a `session.fallback` or
       * the turn's error follows).
       */
      type: 'session.attempt';
      step: number;
      /** Canonical id of the model called. */
      model: string;
      request_id: string;
      phase: 'start' | 'failed' | 'succeeded';
      /** 1 for the first attempt. */
      attempt: number;
      /** Retries made before this attempt. */
      retry_count: number;
      /** How the attempt failed (`phase: "failed"` only, else null). */
      error_class: ErrorClass | null;
      /** The failure's (redacted) message (`phase: "failed"` only, else null). */
      message: string | null;
      /** Whether another attempt follows (`phase: "failed"` only, else false). */
      will_retry: boolean;
      /** The wait before the next attempt in ms, when one follows; else null. */
      delay_ms: number | null;
    }
  | {
      /**
       * A tool that needs consent (write, execute, network side effects) waits for an answer
       * from the stream: the turn was sent with `confirmFromStream: true`.
       * Call `respond(true)` to run it, `respond(false)` to refuse it, or answer by id with
       * `manager.answerConfirmation(session_id, tool_use_id, allowed)`. The turn waits until
       * then, or until it is cancelled (the tool is not run then). Keep iterating the stream
       * while the question is open: the turn answers nothing on its own.
       */
      type: 'session.confirmation_requested';
      step: number;
      /** Id to answer by; the tool use id. */
      request_id: string;
      /** Canonical tool use id. */
      tool_use_id: string;
      tool_name: string;
      side_effects: SideEffects;
      /** The tool input the model asked for (already validated against the tool's schema). */
      input: Record<string, unknown>;
      /** Answers the request; `false` if it was already answered or the turn has ended. */
      respond(allowed: boolean): boolean;
    }
  | {
      /** A tool is about to run (its input is valid and, if needed, consent was given). */
      type: 'session.tool_started';
      step: number;
      tool_name: string;
      /** Canonical tool use id. */
      tool_use_id: string;
      input: Record<string, unknown>;
    }
  | {
      /** What a running tool reported through `context.progress()`, in the order reported. */
      type: 'session.tool_progress';
      step: number;
      tool_name: string;
      /** Canonical tool use id. */
      tool_use_id: string;
      update: string | Record<string, unknown>;
    }
  | {
      /** A tool ran (or was refused) and its result is stored. */
      type: 'session.tool_result';
      step: number;
      message: Message;
      tool_name: string;
      is_error: boolean;
    }
  | {
      /**
       * What is known so far of the object the turn asked for (`output`): one per delta of the
       * object's JSON, in place of the stream event that carried it (the reply's `text.delta`
       * natively, the output tool's `tool.use_input_delta` under the forced-tool fallback;
       * every other stream event passes as is). `value` holds strings, arrays and objects as
       * far as they have arrived (undefined before any of it), a fresh object whenever it grew
       * (unchanged members shared), else the previous event's. The last one of a valid reply
       * equals the turn's `object`. A `session.fallback` or an `object.invalid` makes the
       * partials of that call void (decision 0176).
       */
      type: 'object.partial';
      step: number;
      /** The reply it belongs to: 1 for the first, then the repair policy's attempts. */
      attempt: number;
      /** Canonical id of the model streaming it. */
      model: string;
      /** The delta of the JSON text this event stands for. */
      text: string;
      value: unknown;
    }
  | {
      /**
       * A reply of a turn that asked for an object gave none that validates (not JSON, not
       * the schema's shape, cut at max_tokens, no call of the output tool, or a refusal). With
       * `will_repair` the errors go back to the model for another attempt (`outputRepair`);
       * else the turn ends with `error`.
       */
      type: 'object.invalid';
      step: number;
      attempt: number;
      model: string;
      error: OutputValidationError;
      will_repair: boolean;
    }
  | {
      /** The turn ended. */
      type: 'session.turn_complete';
      result: TurnResult;
    };

/** Why a turn ended. */
export type TurnEnd = StopReason | 'max_steps';

/** What a finished turn amounts to; `T` is the type of the object it asked for, if any. */
export interface TurnResult<T = unknown> {
  session_id: string;
  /** Messages this turn stored, in order (user, assistant, tool, ...). */
  messages: Message[];
  /** The last assistant message's stop reason, or `max_steps` when the step limit stopped the tool loop. */
  end: TurnEnd;
  /** Tool-loop steps made (one model call each, plus the fallback calls within a step). */
  steps: number;
  /** Sum of the priced assistant messages' costs (decimal string); null if any was unpriced. */
  cost_usd: string | null;
  /**
   * The final assistant text of the turn: the text blocks of its last assistant message,
   * concatenated ("" when the turn stored no assistant message).
   */
  text: string;
  /**
   * What the whole session has cost so far, this turn included (exact decimal string, from
   * `store.sessionStats()` when the store has it, else summed over the loaded messages); null
   * when any of its assistant messages is unpriced (never counted as free) or the figure could
   * not be read.
   */
  session_cost_usd: string | null;
  /**
   * The object the turn asked for (`SendOptions.output`), parsed and validated against the
   * full schema. Undefined when it asked for none, or got none: then `error` says why (an
   * `OutputValidationError`), unless the turn was cancelled (`end: "cancelled"`).
   */
  object?: T;
  /**
   * The error that ended the turn, if one did: the adapter's, or an `OutputValidationError`
   * when the turn asked for an object and no reply gave a valid one.
   */
  error: AdapterError | OutputValidationError | null;
}
