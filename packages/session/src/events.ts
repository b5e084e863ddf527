import type {
  AdapterError,
  ErrorClass,
  Message,
  RouteTraceEntry,
  RoutingDecisionRecord,
  StopReason,
  StreamEvent,
} from '@yourtool/core';

/** Everything a turn reports, in order. Stream events of each model call pass through as is. */
export type SessionEvent =
  | StreamEvent
  | {
      /** The user message is stored (once routing found a model for the turn). */
      type: 'session.user_message';
      message: Message;
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
       * `fallbacks:` (decision 0095). A `session.routed` for `to` follows. Whatever the UI
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
      /** A tool ran (or was refused) and its result is stored. */
      type: 'session.tool_result';
      step: number;
      message: Message;
      tool_name: string;
      is_error: boolean;
    }
  | {
      /** The turn ended. */
      type: 'session.turn_complete';
      result: TurnResult;
    };

/** Why a turn ended. */
export type TurnEnd = StopReason | 'max_steps';

/** What a finished turn amounts to. */
export interface TurnResult {
  session_id: string;
  /** Messages this turn stored, in order (user, assistant, tool, ...). */
  messages: Message[];
  /** The last assistant message's stop reason, or `max_steps` when the step limit stopped the tool loop. */
  end: TurnEnd;
  /** Tool-loop steps made (one model call each, plus the fallback calls within a step). */
  steps: number;
  /** Sum of the priced assistant messages' costs (decimal string); null if any was unpriced. */
  cost_usd: string | null;
  /** The error that ended the turn, if one did. */
  error: AdapterError | null;
}
