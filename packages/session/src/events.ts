import type {
  AdapterError,
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
      /** The user message is stored. */
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
  /** Model calls made. */
  steps: number;
  /** Sum of the priced assistant messages' costs (decimal string); null if any was unpriced. */
  cost_usd: string | null;
  /** The error that ended the turn, if one did. */
  error: AdapterError | null;
}
